//! Validation, all of it by layout-runtime: its parser, its verifier, its plan. What this
//! module adds is only what a *static* layout cannot hold (a tuple, a dynamic dimension), and
//! the mapping of every error's byte range to the tokens that wrote it.

use std::ops::Range;

use layout_runtime::{ArrayShape, Dim, Error, ErrorKind, Location, Path, Plan, Shape, SourceMap};

use crate::text::Source;

/// A layout that can be generated.
pub struct Checked {
    pub array: ArrayShape,
    pub plan: Plan,
    /// XLA's ArraySize, when XLA has one (not for `*` in the first tile).
    pub xla_byte_size: Option<u64>,
    /// The bytes of the text that wrote `E(n)`, if it did.
    pub element_size_at: Option<Range<usize>>,
}

impl Checked {
    /// A shape this crate built (a placeholder, a tile's own layout), with its plan; `None`
    /// when the runtime has no plan for it.
    pub fn of(array: ArrayShape) -> Option<Checked> {
        let plan = Plan::untabulated(&array.check().ok()?).ok()?;
        let xla_byte_size = array.byte_size().ok();
        Some(Checked { array, plan, xla_byte_size, element_size_at: None })
    }
}

/// Every error found, and the shape as far as it was understood (for the placeholder).
pub struct Failure {
    pub errors: syn::Error,
    pub shape: Option<Box<ArrayShape>>,
}

/// Collects errors, each located in the source.
struct Errors<'a> {
    source: &'a Source,
    all: Option<syn::Error>,
}

impl Errors<'_> {
    fn push(&mut self, e: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(e),
            None => self.all = Some(e),
        }
    }

    /// A runtime error, at the bytes it names (an error that has only a model path gets
    /// its bytes from the parser's source map).
    fn runtime(&mut self, e: &Error, map: &SourceMap) {
        let located = map.locate(e.clone());
        let message = with_hint(&located);
        self.push(self.source.error(located.span(), &message));
    }
}

/// The runtime's message, plus what to do about it where the fix is not obvious.
fn with_hint(e: &Error) -> String {
    let hint = match e.kind() {
        ErrorKind::TrailingCombine => "; remove the trailing `*` or give it a size",
        ErrorKind::SizeOverflow => "; a static layout's storage must fit in usize",
        _ => "",
    };
    format!("{}{hint}", e.message())
}

/// The most shape text one invocation may hold, all its layouts together: 64 KiB, far beyond
/// any shape XLA prints (a rank-8 shape with three tile levels is under 100 bytes) and
/// hundreds of layouts of the usual kind, while the work it sets the compiler (the checks and
/// the generated code, both in proportion to the text) stays a few seconds at most.
pub const MAX_TEXT: usize = 64 << 10;

/// `Ok` when the shapes of one invocation hold at most [`MAX_TEXT`] bytes together; else the
/// error, at the first shape that passes the limit.
pub fn within_limit(sources: &[Source]) -> Result<(), syn::Error> {
    let mut total = 0usize;
    for (k, source) in sources.iter().enumerate() {
        total += source.text.len();
        if total > MAX_TEXT {
            let all: usize = sources.iter().map(|s| s.text.len()).sum();
            let limit = format!(
                "one invocation reads at most {MAX_TEXT} (its limit on input size; XLA's shapes \
                 are far smaller)"
            );
            let message = if sources.len() == 1 {
                format!("the shape text is {all} bytes, and {limit}")
            } else {
                format!(
                    "this `layout!` holds {all} bytes of shape text, and {limit}: the shapes up \
                     to this one, number {} of {}, already hold {total}; split the items into \
                     several `layout!` invocations",
                    k + 1,
                    sources.len()
                )
            };
            return Err(source.error(None, &message));
        }
    }
    Ok(())
}

/// A shape text parsed and validated by layout-runtime, with every error found so far: what
/// [`check`] and the FFI handler's checks add their own rules to before [`finish`].
pub struct Parsed<'a> {
    pub array: ArrayShape,
    pub map: SourceMap,
    errors: Errors<'a>,
}

impl Parsed<'_> {
    /// Adds an error of the runtime's kind at the part of the text its path names.
    pub fn runtime_error(&mut self, e: &Error) {
        self.errors.runtime(e, &self.map);
    }

    /// Adds an error of a rule of the macro's own at the text of `location` (of the whole
    /// layout, then of the whole shape, when that part was not written).
    pub fn error_at(&mut self, location: Location, message: &str) {
        let at = |location| self.map.span(&Path { tuple_indices: Vec::new(), location });
        let range = at(location).or_else(|| at(Location::Layout)).or_else(|| at(Location::Shape));
        let e = self.errors.source.error(range, message);
        self.errors.push(e);
    }
}

/// A static layout: one array shape, valid, with static dimensions, and its plan.
pub fn check(source: &Source) -> Result<Checked, Failure> {
    let mut parsed = parse(source)?;
    for (i, d) in parsed.array.dims.clone().iter().enumerate() {
        let written = match d {
            Dim::Static(_) => continue,
            Dim::Bounded(n) => format!("`<={n}`"),
            Dim::Unbounded => String::from("`?`"),
        };
        let e = Error::new(
            ErrorKind::NotStaticArray,
            format!(
                "dimension {i} is dynamic ({written}): a static layout needs static sizes; \
                 use the runtime `xlayout::Shape` for dynamic shapes"
            ),
        )
        .with_path(Path { tuple_indices: Vec::new(), location: Location::Dim(i) });
        parsed.runtime_error(&e);
    }
    finish(parsed)
}

/// The text parsed and validated, one array shape (its dimensions may be dynamic).
pub fn parse(source: &Source) -> Result<Parsed<'_>, Failure> {
    let mut errors = Errors { source, all: None };
    let (shape, map) = match Shape::parse_with_source_map(&source.text) {
        Ok(parsed) => parsed,
        Err(e) => {
            let errors = source.error(e.span(), &with_hint(&e));
            return Err(Failure { errors, shape: None });
        }
    };
    for e in shape.validate_all() {
        errors.runtime(&e, &map);
    }
    match shape {
        Shape::Array(array) => Ok(Parsed { array, map, errors }),
        other => {
            let what = match other {
                Shape::Tuple(_) => {
                    "a tuple; tuples have no layout of their own: write one `layout!` per element"
                }
                Shape::Buffer(_) => "a buffer `b(...)`: write the array inside it",
                Shape::Token => "`token[]`, which has no data",
                _ => "`opaque[]`, which has no data",
            };
            let message = format!("a static layout is one array shape, and `{other}` is {what}");
            errors.push(source.error(None, &message));
            Err(Failure { errors: errors.all.expect("just pushed"), shape: None })
        }
    }
}

/// The errors found, or the layout with its plan (the dimensions must be static by now).
pub fn finish(parsed: Parsed<'_>) -> Result<Checked, Failure> {
    let Parsed { array, map, mut errors } = parsed;
    if let Some(all) = errors.all {
        return Err(Failure { errors: all, shape: Some(Box::new(array)) });
    }
    // The macro reads the plan's sizes and programs: no offset tables.
    match array.check().and_then(|checked| Plan::untabulated(&checked)) {
        Ok(plan) => {
            let xla_byte_size = array.byte_size().ok();
            let at = Path { tuple_indices: Vec::new(), location: Location::ElementSize };
            let element_size_at = map.span(&at);
            Ok(Checked { array, plan, xla_byte_size, element_size_at })
        }
        Err(e) => {
            errors.runtime(&e, &map);
            Err(Failure { errors: errors.all.expect("just pushed"), shape: Some(Box::new(array)) })
        }
    }
}

/// The errors found in a shape with dynamic dimensions, which has no plan to make here (its
/// sizes come at run time).
pub fn finish_dynamic(parsed: Parsed<'_>) -> Result<(), syn::Error> {
    parsed.errors.all.map_or(Ok(()), Err)
}
