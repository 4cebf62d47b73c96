//! Reading one execute call's frame against a [`Signature`]: the counts, then every buffer's
//! element type and dimensions (and its data pointer, size and overlaps), then every declared
//! attribute. Nothing is handed to a body before all of it is checked; every mismatch is an
//! [`Error`] that names the buffer or attribute, what was declared and what came.
//!
//! The raw pointers of the frame are read here and nowhere else but `entry` (the frame's
//! head) and `types` (a scalar's bytes).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::c_void;
use core::fmt::Write;

use super::c_api::{self, ArgType, AttrType, DataType, BUFFER_STRUCT_SIZE};
use super::error::Error;
use super::signature::{AttrParam, BufferDim, Param, Signature};
use crate::{Dim, PrimitiveType};

/// The most dimensions of a buffer whose sizes an error message reads: a rank beyond it is
/// reported as a number (XLA's shapes have a handful; a frame's `rank` is not trusted to
/// bound a read).
const MAX_RANK_READ: i64 = 64;

/// The parts of a call frame read after its head: the stage and the three lists, within the
/// size the frame states.
pub(crate) struct Parts<'a> {
    pub(crate) stage: c_api::ExecutionStage,
    pub(crate) args: &'a c_api::Args,
    pub(crate) rets: &'a c_api::Rets,
    pub(crate) attrs: &'a c_api::Attrs,
}

/// An argument checked against its declaration: its bytes and its sizes.
pub(crate) struct ArgBuffer<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) dims: &'a [i64],
}

/// A result checked against its declaration; its bytes until a body takes them.
pub(crate) struct ResultBuffer<'a> {
    pub(crate) bytes: Option<&'a mut [u8]>,
    pub(crate) dims: &'a [i64],
}

/// A buffer of the frame whose declaration matched, with its place in memory.
struct Located<'a> {
    data: *mut u8,
    len: usize,
    dims: &'a [i64],
}

/// Whether the frame's buffer is an operand or a result, for messages.
#[derive(Clone, Copy)]
enum Side {
    Arg,
    Result,
}

impl Side {
    fn noun(self) -> &'static str {
        match self {
            Side::Arg => "argument",
            Side::Result => "result",
        }
    }
}

/// A frame's list of buffers: the `size`, `types` and pointers of `XLA_FFI_Args` or
/// `XLA_FFI_Rets` (the two have one layout).
struct List {
    struct_size: usize,
    size: i64,
    types: *const ArgType,
    buffers: *const *mut c_void,
}

impl List {
    fn args(a: &c_api::Args) -> List {
        List { struct_size: a.struct_size, size: a.size, types: a.types, buffers: a.args }
    }

    fn rets(r: &c_api::Rets) -> List {
        List { struct_size: r.struct_size, size: r.size, types: r.types, buffers: r.rets }
    }

    /// `Ok` when the list holds exactly `expected` entries whose arrays are there to read.
    fn check_count(&self, expected: usize, stage: i32, what: &str) -> Result<(), Error> {
        if self.struct_size < c_api::ARGS_STRUCT_SIZE {
            return Err(size_error(
                if what == "arguments" { "XLA_FFI_Args" } else { "XLA_FFI_Rets" },
                c_api::ARGS_STRUCT_SIZE,
                self.struct_size,
            ));
        }
        // The C++ binding's words (`xla/ffi/api/api.h`, `Handler::Call`).
        if usize::try_from(self.size).ok() != Some(expected) {
            return Err(Error::invalid_argument(format!(
                "[{stage}] Wrong number of {what}: expected {expected} but got {}",
                self.size
            )));
        }
        if expected > 0 && (self.types.is_null() || self.buffers.is_null()) {
            return Err(Error::invalid_argument(format!(
                "the frame's {what} have a null array for {expected} entries"
            )));
        }
        Ok(())
    }

    /// The `i`-th buffer, checked against `param`.
    ///
    /// # Safety
    ///
    /// [`List::check_count`] accepted the list for more than `i` entries, and the frame's
    /// pointers are XLA's: each non-null pointer points at what the header says.
    unsafe fn buffer<'a>(&self, i: usize, param: &Param, side: Side) -> Result<Located<'a>, Error> {
        let name = param.name;
        let noun = side.noun();
        // SAFETY: `i` is below the checked count, whose arrays are non-null (the contract).
        let (tag, pointer) = unsafe { (self.types.add(i).read(), self.buffers.add(i).read()) };
        if tag != ArgType::BUFFER {
            return Err(Error::invalid_argument(format!(
                "{noun} `{name}`: expected a buffer {}, got an operand of type {}",
                param.text, tag.0
            )));
        }
        let pointer = pointer.cast::<c_api::Buffer>().cast_const();
        if pointer.is_null() {
            return Err(Error::invalid_argument(format!("{noun} `{name}`: the buffer is null")));
        }
        // SAFETY: a buffer tag's non-null pointer points at an `XLA_FFI_Buffer` (the
        // contract), which begins with its size; the rest is read once the size covers it.
        let size = unsafe { core::ptr::addr_of!((*pointer).struct_size).read() };
        if size < BUFFER_STRUCT_SIZE {
            return Err(size_error("XLA_FFI_Buffer", BUFFER_STRUCT_SIZE, size));
        }
        // SAFETY: as above; the header's size is the whole struct.
        let buffer: &'a c_api::Buffer = unsafe { &*pointer };
        // SAFETY: `dims` points at `rank` sizes (the contract), read only for a plausible rank.
        let dims = unsafe { read_dims(buffer) };
        let received = || describe(buffer.dtype, buffer.rank, dims);
        let mismatch = || {
            Error::invalid_argument(format!(
                "{noun} `{name}`: expected {}, got a buffer {}",
                param.text,
                received()
            ))
        };
        let dims = match dims {
            Some(dims) if buffer.dtype == DataType::from(param.element_type) => dims,
            _ => return Err(mismatch()),
        };
        if dims.len() != param.dims.len() || !dims.iter().zip(param.dims).all(|(&n, &d)| fits(n, d))
        {
            return Err(mismatch());
        }
        let width = u64::from(param.element_type.byte_width());
        let len = dims
            .iter()
            .try_fold(width, |bytes, &n| bytes.checked_mul(n as u64))
            .and_then(|bytes| usize::try_from(bytes).ok())
            .filter(|&bytes| bytes <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "{noun} `{name}`: the buffer {} has more bytes than memory can hold",
                    received()
                ))
            })?;
        let data = buffer.data.cast::<u8>();
        if data.is_null() && len > 0 {
            return Err(Error::invalid_argument(format!(
                "{noun} `{name}`: the buffer {} has no data (a null pointer for {len} bytes)",
                received()
            )));
        }
        Ok(Located { data, len, dims })
    }
}

/// Whether a buffer's size `n` is what the declared dimension `d` allows.
fn fits(n: i64, d: Dim) -> bool {
    match (u64::try_from(n), d) {
        (Ok(n), Dim::Static(s)) => n == s,
        (Ok(n), Dim::Bounded(b)) => n <= b,
        (Ok(_), Dim::Unbounded) => true,
        (Err(_), _) => false,
    }
}

/// The sizes of a buffer, when its rank is one whose sizes may be read.
///
/// # Safety
///
/// `buffer.dims` points at `buffer.rank` readable `i64`s when the rank is positive.
unsafe fn read_dims(buffer: &c_api::Buffer) -> Option<&[i64]> {
    match buffer.rank {
        0 => Some(&[]),
        rank @ 1..=MAX_RANK_READ if !buffer.dims.is_null() => {
            // SAFETY: the contract, for a rank small enough to read (below isize::MAX bytes).
            Some(unsafe { core::slice::from_raw_parts(buffer.dims, rank as usize) })
        }
        _ => None,
    }
}

/// A received buffer in XLA's words, without a layout (a frame carries none): `s32[64,32]`.
fn describe(dtype: DataType, rank: i64, dims: Option<&[i64]>) -> String {
    let mut s = match dtype.primitive_type() {
        Some(t) => String::from(t.name()),
        None => format!("of data type {}", dtype.0),
    };
    match dims {
        Some(dims) => {
            s.push('[');
            for (k, n) in dims.iter().enumerate() {
                let _ = write!(s, "{}{n}", if k > 0 { "," } else { "" });
            }
            s.push(']');
        }
        None => {
            let _ = write!(s, " of rank {rank}");
        }
    }
    s
}

/// The C++ binding's message for a struct smaller than this header's.
pub(crate) fn size_error(what: &str, expected: usize, actual: usize) -> Error {
    Error::invalid_argument(format!(
        "Unexpected {what} size: expected at least {expected} got {actual}. Check installed \
         software versions."
    ))
}

/// Whether two byte ranges share a byte.
fn overlap(a: &Located<'_>, b: &Located<'_>) -> bool {
    let (a0, b0) = (a.data as usize, b.data as usize);
    a.len > 0 && b.len > 0 && a0 < b0.saturating_add(b.len) && b0 < a0.saturating_add(a.len)
}

/// Every buffer of an execute frame, checked against `signature`.
///
/// # Safety
///
/// `frame` is a call frame from XLA: each non-null pointer in it points at what the header
/// says, valid for the duration of the call (`'a`), and the result buffers are not read or
/// written by anything else meanwhile.
pub(crate) unsafe fn buffers<'a>(
    frame: &Parts<'a>,
    signature: &Signature,
) -> Result<(Vec<ArgBuffer<'a>>, Vec<ResultBuffer<'a>>), Error> {
    let stage = frame.stage.0;
    let args = List::args(frame.args);
    let rets = List::rets(frame.rets);
    args.check_count(signature.args.len(), stage, "arguments")?;
    rets.check_count(signature.results.len(), stage, "results")?;
    let mut located_args = Vec::with_capacity(signature.args.len());
    for (i, param) in signature.args.iter().enumerate() {
        // SAFETY: `i` is below the checked count; the frame is XLA's (the contract).
        located_args.push(unsafe { args.buffer(i, param, Side::Arg) }?);
    }
    let mut located_rets: Vec<Located<'a>> = Vec::with_capacity(signature.results.len());
    for (i, param) in signature.results.iter().enumerate() {
        // SAFETY: as above.
        let r = unsafe { rets.buffer(i, param, Side::Result) }?;
        // A result handed out as `&mut` must share no byte with any other buffer (XLA aliases
        // a result with an operand when the call asks, `input_output_aliases`).
        let other = located_args
            .iter()
            .zip(signature.args)
            .map(|(a, p)| (a, p, Side::Arg))
            .chain(located_rets.iter().zip(signature.results).map(|(b, p)| (b, p, Side::Result)))
            .find(|(other, _, _)| overlap(&r, other));
        if let Some((_, p, side)) = other {
            return Err(Error::invalid_argument(format!(
                "result `{}` shares memory with {} `{}` (input_output_aliases?): a handler \
                 declared with xlayout::ffi writes results that alias no other buffer",
                param.name,
                side.noun(),
                p.name
            )));
        }
        located_rets.push(r);
    }
    check_links(signature, &located_args, &located_rets)?;
    let args = located_args
        .into_iter()
        .map(|a| ArgBuffer {
            // SAFETY: `data` is non-null (or the length 0, then dangling) and points at `len`
            // bytes of the operand that XLA keeps alive and unwritten for the call (the
            // contract); `len` was checked to be at most isize::MAX.
            bytes: unsafe { bytes(a.data, a.len) },
            dims: a.dims,
        })
        .collect();
    let results = located_rets
        .into_iter()
        .map(|r| ResultBuffer {
            // SAFETY: as above, for a result buffer that shares no byte with any other buffer
            // (checked above), so this is the only reference to its bytes. XLA's result memory
            // is uninitialized for the program but holds bytes as far as Rust can tell (it was
            // allocated outside Rust); every element type of a result accepts any bits but
            // `bool`, which is zeroed before it is typed (`FfiElement`).
            bytes: Some(unsafe { bytes_mut(r.data, r.len) }),
            dims: r.dims,
        })
        .collect();
    Ok((args, results))
}

/// `len` bytes at `data`, or an empty slice for a null pointer with no bytes.
///
/// # Safety
///
/// For `len > 0`, `data` is non-null and `len` bytes there are readable and not written
/// during `'a`; `len <= isize::MAX`.
unsafe fn bytes<'a>(data: *mut u8, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the contract.
    unsafe { core::slice::from_raw_parts(data, len) }
}

/// `len` bytes at `data`, writable; empty for a null pointer with no bytes.
///
/// # Safety
///
/// As [`bytes`], and nothing else reads or writes those bytes during `'a`.
unsafe fn bytes_mut<'a>(data: *mut u8, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the contract.
    unsafe { core::slice::from_raw_parts_mut(data, len) }
}

/// `Ok` when every pair of dimensions declared equal is.
fn check_links(
    signature: &Signature,
    args: &[Located<'_>],
    rets: &[Located<'_>],
) -> Result<(), Error> {
    for link in signature.links {
        let size = |d: BufferDim| {
            let list = if d.result { rets } else { args };
            list.get(d.buffer).and_then(|b| b.dims.get(d.dim)).copied()
        };
        let (left, right) = (size(link.left), size(link.right));
        if left != right {
            let name = |d: BufferDim| signature.param(d).map_or("?", |p| p.name);
            let shown = |n: Option<i64>| n.map_or(String::from("missing"), |n| format!("{n}"));
            return Err(Error::invalid_argument(format!(
                "`{l}` dimension {ld} is {lv} and `{r}` dimension {rd} is {rv}, declared equal \
                 (`{l}[{ld}] = {r}[{rd}]`)",
                l = name(link.left),
                ld = link.left.dim,
                lv = shown(left),
                r = name(link.right),
                rd = link.right.dim,
                rv = shown(right),
            )));
        }
    }
    Ok(())
}

/// Every declared attribute of a frame (execute or instantiate), by name: the pointer to
/// each one's value, in declaration order. A handler that declares none ignores the frame's
/// (as the C++ binding does); one that declares some takes exactly those.
///
/// # Safety
///
/// As [`buffers`].
pub(crate) unsafe fn attributes(
    frame: &Parts<'_>,
    signature: &Signature,
) -> Result<Vec<*const c_void>, Error> {
    let declared = signature.attrs;
    if declared.is_empty() {
        return Ok(Vec::new());
    }
    let attrs = frame.attrs;
    if attrs.struct_size < c_api::ATTRS_STRUCT_SIZE {
        return Err(size_error("XLA_FFI_Attrs", c_api::ATTRS_STRUCT_SIZE, attrs.struct_size));
    }
    let count = usize::try_from(attrs.size).ok().filter(|_| {
        attrs.size == 0
            || !(attrs.types.is_null() || attrs.names.is_null() || attrs.attrs.is_null())
    });
    // SAFETY: `count` entries of each array are readable when it is `Some` (the contract).
    let names: Vec<&[u8]> = match count {
        Some(n) => (0..n).map(|k| unsafe { attr_name(attrs, k) }).collect(),
        None => Vec::new(),
    };
    if count != Some(declared.len()) {
        // The C++ binding's words, with the names the frame has.
        let mut message = format!(
            "[{}] Wrong number of attributes: expected {} but got {}",
            frame.stage.0,
            declared.len(),
            attrs.size
        );
        if !names.is_empty() {
            message.push_str(" with name(s): ");
            message.push_str(&join_names(&names));
        }
        return Err(Error::invalid_argument(message));
    }
    let mut values = Vec::with_capacity(declared.len());
    for param in declared {
        let Some(k) = names.iter().position(|n| *n == param.name.as_bytes()) else {
            return Err(Error::invalid_argument(format!(
                "attribute `{}` is missing (the call has {})",
                param.name,
                join_names(&names)
            )));
        };
        // SAFETY: `k` is below the checked count of the non-null arrays (the contract).
        values.push(unsafe { scalar(attrs, k, param) }?);
    }
    Ok(values)
}

/// The names, joined with `, ` (bytes that are not UTF-8 shown as U+FFFD).
fn join_names(names: &[&[u8]]) -> String {
    let mut s = String::new();
    for (k, n) in names.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        s.push_str(&String::from_utf8_lossy(n));
    }
    s
}

/// The name of attribute `k`.
///
/// # Safety
///
/// `k` is below `attrs.size`, whose arrays are non-null and XLA's.
unsafe fn attr_name(attrs: &c_api::Attrs, k: usize) -> &[u8] {
    // SAFETY: the contract: `names[k]` is null or points at a byte span of `len` bytes.
    unsafe {
        match attrs.names.add(k).read().as_ref() {
            Some(span) if !span.ptr.is_null() && span.len <= isize::MAX as usize => {
                core::slice::from_raw_parts(span.ptr.cast::<u8>(), span.len)
            }
            _ => &[],
        }
    }
}

/// The value pointer of attribute `k`, checked to be a scalar of `param`'s type.
///
/// # Safety
///
/// As [`attr_name`].
unsafe fn scalar(
    attrs: &c_api::Attrs,
    k: usize,
    param: &AttrParam,
) -> Result<*const c_void, Error> {
    let name = param.name;
    let expected = param.element_type.name();
    // SAFETY: the contract: `types[k]` and `attrs[k]` are readable.
    let (tag, pointer) = unsafe { (attrs.types.add(k).read(), attrs.attrs.add(k).read()) };
    if tag != AttrType::SCALAR {
        let what = match tag {
            AttrType::ARRAY => "an array",
            AttrType::DICTIONARY => "a dictionary",
            AttrType::STRING => "a string",
            _ => "an attribute of an unknown kind",
        };
        return Err(Error::invalid_argument(format!(
            "attribute `{name}`: expected a scalar {expected}, got {what}"
        )));
    }
    // SAFETY: a scalar's pointer is null or points at an `XLA_FFI_Scalar` (the contract).
    let Some(scalar) = (unsafe { pointer.cast::<c_api::Scalar>().as_ref() }) else {
        return Err(Error::invalid_argument(format!("attribute `{name}`: the scalar is null")));
    };
    if scalar.dtype != DataType::from(param.element_type) || scalar.value.is_null() {
        let got = match scalar.dtype.primitive_type() {
            Some(t) => String::from(t.name()),
            None => format!("data type {}", scalar.dtype.0),
        };
        let hint = match (param.element_type, scalar.dtype.primitive_type()) {
            (PrimitiveType::F32, Some(PrimitiveType::F64)) => {
                " (a Python float is f64: pass np.float32(...), or call through xlayout.jax.load)"
            }
            (_, Some(PrimitiveType::S64)) => {
                " (a Python int is s64: pass a numpy scalar of the declared type, or call \
                 through xlayout.jax.load)"
            }
            _ => "",
        };
        return Err(Error::invalid_argument(format!(
            "attribute `{name}`: dtype {got}, expected {expected}{hint}"
        )));
    }
    Ok(scalar.value.cast_const())
}
