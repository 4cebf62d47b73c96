//! What a handler takes, as data: each buffer's name, canonical layout text, element type,
//! dimensions and order; each attribute's name and type; which dimensions must be equal.
//! [`handler!`](crate::ffi::handler) writes one [`Signature`] per handler from its
//! declaration (the same text it checked with layout-runtime's parser and validator), and the
//! call frame is checked against it before the body runs.

use crate::{Dim, PrimitiveType};

/// A buffer a handler takes or writes.
///
/// ```
/// use xlayout::{ffi::Param, Dim, PrimitiveType};
/// let x = Param {
///     name: "x",
///     text: "f32[?,128]{1,0}",
///     element_type: PrimitiveType::F32,
///     dims: &[Dim::Unbounded, Dim::Static(128)],
///     minor_to_major: &[1, 0],
/// };
/// assert_eq!(x.major_to_minor().collect::<Vec<_>>(), [0, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name in the declaration (what errors call the buffer).
    pub name: &'static str,
    /// The layout's canonical text, as XLA prints it.
    pub text: &'static str,
    /// The element type.
    pub element_type: PrimitiveType,
    /// The dimensions: a static size, a bound (`<=N`: at most N) or any size (`?`).
    pub dims: &'static [Dim],
    /// The physical order of the dense buffer, most minor first (XLA's `minor_to_major`).
    pub minor_to_major: &'static [usize],
}

impl Param {
    /// The physical order, most major first: what `jax.ffi.ffi_call` takes as a layout.
    ///
    /// ```
    /// use xlayout::{ffi::Param, Dim, PrimitiveType};
    /// let p = Param { name: "x", text: "f32[2,3]{0,1}", element_type: PrimitiveType::F32,
    ///                 dims: &[Dim::Static(2), Dim::Static(3)], minor_to_major: &[0, 1] };
    /// assert_eq!(p.major_to_minor().collect::<Vec<_>>(), [1, 0]);
    /// ```
    pub fn major_to_minor(&self) -> impl Iterator<Item = usize> + '_ {
        self.minor_to_major.iter().rev().copied()
    }

    /// Whether every dimension is static (the buffer is a `layout!` type's view; otherwise a
    /// run-time `View` whose sizes come from the call).
    ///
    /// ```
    /// use xlayout::{ffi::Param, Dim, PrimitiveType};
    /// let p = Param { name: "x", text: "f32[<=8]{0}", element_type: PrimitiveType::F32,
    ///                 dims: &[Dim::Bounded(8)], minor_to_major: &[0] };
    /// assert!(!p.is_static());
    /// ```
    pub fn is_static(&self) -> bool {
        self.dims.iter().all(|d| !d.is_dynamic())
    }
}

/// A scalar attribute a handler takes by name.
///
/// ```
/// use xlayout::{ffi::AttrParam, PrimitiveType};
/// let factor = AttrParam { name: "factor", element_type: PrimitiveType::F32 };
/// assert_eq!(factor.element_type.name(), "f32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttrParam {
    /// The attribute's name (the keyword in Python).
    pub name: &'static str,
    /// The scalar's type.
    pub element_type: PrimitiveType,
}

/// One dimension of one buffer of a signature.
///
/// ```
/// use xlayout::ffi::BufferDim;
/// let d = BufferDim { result: false, buffer: 0, dim: 1 };
/// assert!(!d.result);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDim {
    /// A result's dimension (else an argument's).
    pub result: bool,
    /// Which argument or result.
    pub buffer: usize,
    /// Which dimension of it.
    pub dim: usize,
}

/// Two dimensions a handler declares equal (`where y[0] = x[0]`): how the size of a result's
/// dynamic dimension follows from the arguments (Python computes the result's shape from
/// it), and a check on every call.
///
/// ```
/// use xlayout::ffi::{BufferDim, DimLink};
/// let link = DimLink {
///     left: BufferDim { result: true, buffer: 0, dim: 0 },
///     right: BufferDim { result: false, buffer: 0, dim: 0 },
/// };
/// assert!(link.left.result);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimLink {
    /// The dimension written left of `=`.
    pub left: BufferDim,
    /// The dimension written right of `=`.
    pub right: BufferDim,
}

/// Everything a handler takes, in order.
///
/// ```
/// use xlayout::ffi::Signature;
/// let empty = Signature { name: "nothing", args: &[], results: &[], attrs: &[], links: &[] };
/// assert_eq!(empty.name, "nothing");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The handler's name (its exported symbol and XLA target name).
    pub name: &'static str,
    /// The operands, in order.
    pub args: &'static [Param],
    /// The results, in order.
    pub results: &'static [Param],
    /// The attributes, in declaration order.
    pub attrs: &'static [AttrParam],
    /// Dimensions declared equal.
    pub links: &'static [DimLink],
}

impl Signature {
    /// The buffer a [`BufferDim`] names.
    pub(crate) fn param(&self, d: BufferDim) -> Option<&'static Param> {
        if d.result {
            self.results.get(d.buffer)
        } else {
            self.args.get(d.buffer)
        }
    }
}
