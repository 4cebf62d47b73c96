//! The properties the fuzz targets (`fuzz/fuzz_targets/`) and the bounded test that CI runs
//! every time (`tests/fuzz_props.rs`) both check, written once, in the tests' support crate
//! that both depend on. Every function takes raw bytes, as a fuzzer gives them, and panics
//! exactly when a property fails.
//!
//! - [`shape_text`]: any bytes as shape text. Parsing never panics; an error's span lies
//!   on character boundaries of the text; parse(print(s)) == s for every shape the parser
//!   accepts (except the `#(invalid)` XLA prints for a non-integer `#` type, which its own
//!   parser refuses); `validate()` is `validate_all()`'s first error; `str::parse` is
//!   parse-then-validate; and every array of a valid shape sizes and plans without panic,
//!   with the offset properties of [`plan_properties`].
//! - [`plan_case`]: an array shape built in code from the bytes (odd sizes, 0 and 1 dims, up
//!   to 17 tile levels, `*`, sub-byte `E(n)`, `L`, some invalid values on purpose), or a
//!   shape text when the first byte is 0. `check` agrees with the verifier, the printed
//!   text comes back, and a valid plan has every offset inside the grid, `index_of` as its
//!   inverse, no two elements at one offset, and sizes that agree.
//! - [`relayout_case`]: two layouts of one array, built the same way (or two shape texts);
//!   `RelayoutPlan::run` equals its element-by-element general path bit for bit, and both
//!   equal a reference written element by element through the two plans, as do `run` with
//!   every setting a plan may choose (`__candidates`: SIMD levels, streaming or cached
//!   stores, block sizes), a run that measures them on slices of its own work, and
//!   `run_parallel` at every SIMD level with non-temporal stores forced on, into
//!   destinations at several alignments (bytes around them untouched); padding is zero;
//!   a wrong buffer length or a mismatched pair is an error with the destination untouched.
//! - [`hlo::hlo_text`]: any bytes as an HLO module, through every stage of `xlayout::hlo`;
//!   [`hlo::peak_text`]: a module and XLA's memory files beside it, through `--peak`.
//! - [`oom::oom_text`]: any bytes as an out-of-memory report, through `xlayout::oom`.
//! - [`draw::draw_case`]: an array shape hostile to pictures (sizes of 0, tiles of 2⁶³−1,
//!   `*`, sub-byte types) and map options from the bytes, drawn within fixed bounds.
//! - [`buffers::overlap_case`]: a relayout between two ranges of one arena placed anywhere
//!   (overlapping or not), as the Python package's buffers reach the library: the check by
//!   address refuses exactly the overlaps, and what it lets through is sound.

pub mod buffers;
pub mod draw;
pub mod hlo;
pub mod oom;

use arbitrary::{Result, Unstructured};
use xlayout::{
    relayout, write_packed, ArrayShape, ChosenBy, Dim, ErrorKind, Layout, Plan, PrimitiveType,
    RelayoutPlan, Shape, Simd, SplitConfig, Tile, TileDim,
};

/// How far a case went: the bounded test counts these, so that a generator that stopped
/// reaching the interesting paths fails it instead of passing vacuously.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reached {
    /// The bytes did not make a case (too few, or text that does not parse as one).
    Nothing,
    /// Refused with an error (an invalid shape, a mismatched pair, no plan).
    Refused,
    /// Planned, offsets checked at the corners only, or buffers too large to move.
    Sampled,
    /// Every offset checked, or every engine run and compared.
    Full,
    /// A relayout whose every engine was run and compared, one run of which measured its
    /// settings on slices of its own work.
    Measured,
}

/// Largest grid whose offsets are all checked (bigger ones are sampled at their corners).
const FULL_GRID: usize = 1 << 14;

/// Largest buffers a relayout case moves (in bytes), so that each run stays fast.
const MAX_BUFFER: usize = 1 << 16;

// ---------------------------------------------------------------------------------------------
// (a) Shape text

/// Any bytes as shape text (lossily decoded, so every byte string reaches the parser).
pub fn shape_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text: &str = &text;

    let unvalidated = Shape::parse_unvalidated(text);
    let parsed = text.parse::<Shape>();
    for e in unvalidated.as_ref().err().into_iter().chain(parsed.as_ref().err()) {
        error_points_into(e, text);
    }
    match &unvalidated {
        Err(e) => {
            let p = parsed.as_ref().expect_err("str::parse accepted what the parser refuses");
            assert_eq!(p.kind(), e.kind(), "{text:?}");
        }
        Ok(s) => {
            let first = s.validate();
            let all = s.validate_all();
            assert_eq!(first.as_ref().err(), all.first(), "{text:?}");
            assert_eq!(first.is_ok(), all.is_empty());
            match (&parsed, &first) {
                (Ok(p), Ok(())) => assert_eq!(p, s),
                (Err(p), Err(v)) => assert_eq!(p.kind(), v.kind(), "{text:?}"),
                _ => panic!("str::parse and parse-then-validate disagree on {text:?}"),
            }
            round_trip(s);
            if first.is_ok() {
                valid_shape(s);
            }
        }
    }

    // A shape at the start of a longer text ends on a character boundary inside it.
    if let Ok((s, end)) = Shape::parse_prefix(text) {
        assert!(text.is_char_boundary(end) && end <= text.len(), "{text:?} ends at {end}");
        round_trip(&s);
    }
    // A layout alone, and an array alone, never panic and agree with the shape parser.
    if let Ok(layout) = text.parse::<Layout>() {
        let again: Layout = layout.to_string().parse().expect("a printed valid layout parses");
        assert_eq!(again, layout);
    }
    match (text.parse::<ArrayShape>(), &parsed) {
        (Ok(a), Ok(s)) => assert_eq!(Some(&a), s.as_array()),
        (Ok(_), Err(e)) => panic!("an array parses that the shape parser refuses: {e}"),
        (Err(e), _) => error_points_into(&e, text),
    }
}

/// An error's span, if any, lies inside `text` on character boundaries, and it renders.
fn error_points_into(e: &xlayout::Error, text: &str) {
    if let Some(span) = e.span() {
        assert!(span.start <= span.end && span.end <= text.len(), "{span:?} in {text:?}");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    }
    let _ = e.render(text).to_string();
    let _ = e.to_string();
}

/// Whether `e` is one of the limits of `xlayout::limits`.
fn limit(e: &xlayout::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::RankTooLarge | ErrorKind::TooManyTileLevels | ErrorKind::NestingTooDeep
    )
}

/// parse(print(s)) == s and print is a fixed point, except for the three values a model built
/// in code can hold that the text cannot: a non-integer `#` or `*` type, which prints as XLA
/// prints it, `#(invalid)`, and which the parser refuses as XLA's does; and `L` below 1,
/// which XLA's parser aborts on (README, "Where XLA's behaviour is surprising"); and sizes
/// past this crate's limits, which the parser refuses at the text that crosses them.
fn round_trip(s: &Shape) {
    let printed = s.to_string();
    match Shape::parse_unvalidated(&printed) {
        Ok(again) => {
            assert_eq!(&again, s, "{printed}");
            assert_eq!(again.to_string(), printed);
        }
        Err(e) => assert!(
            printed.contains("(invalid)")
                || e.kind() == ErrorKind::TailPaddingAlignment
                || limit(&e),
            "{printed:?} does not parse: {e}"
        ),
    }
}

/// Every array of a valid shape: sizes and plans never panic, and plans are consistent.
fn valid_shape(s: &Shape) {
    let _ = s.byte_size();
    let _ = s.byte_size_of(8);
    match s {
        Shape::Array(a) | Shape::Buffer(a) => {
            let _ = (a.element_count(), a.byte_size_of(), a.byte_size());
            if let Ok(plan) = a.plan() {
                let _ = plan_properties(a, &plan);
            }
        }
        Shape::Tuple(parts) => parts.iter().for_each(valid_shape),
        Shape::Token | Shape::Opaque => {}
    }
}

// ---------------------------------------------------------------------------------------------
// (b) Plans and offsets

/// An array shape built from the bytes (or, after a 0 byte, read as text), with the
/// properties of checking, printing and planning.
pub fn plan_case(data: &[u8]) -> Reached {
    if let Some((&0, text)) = data.split_first() {
        return match Shape::parse_unvalidated(&String::from_utf8_lossy(text)) {
            Ok(Shape::Array(a)) => array_properties(&a),
            _ => Reached::Nothing,
        };
    }
    match any_array(&mut Unstructured::new(data)) {
        Ok(a) => array_properties(&a),
        Err(_) => Reached::Nothing,
    }
}

/// Checking agrees with the verifier, the text round-trips, and a valid plan is consistent.
fn array_properties(a: &ArrayShape) -> Reached {
    let shape = Shape::Array(a.clone());
    // The text of an array without a layout is that of its default layout.
    let layout = Some(a.layout_or_default().into_owned());
    round_trip(&Shape::Array(ArrayShape { layout, ..a.clone() }));
    let verdict = shape.validate();
    let checked = a.check();
    match (&verdict, &checked) {
        (Err(v), Err(c)) => assert_eq!(v, c, "{a}"),
        (Err(v), Ok(_)) => panic!("check accepts what the verifier refuses: {v}"),
        (Ok(()), Err(c)) => assert!(limit(c), "check refuses a valid shape within the limits: {c}"),
        (Ok(()), Ok(_)) => {}
    }
    // The text agrees with the model: it parses (and validates) exactly when checking passes.
    assert_eq!(a.to_string().parse::<ArrayShape>().is_ok(), checked.is_ok(), "{a}");
    let Ok(checked) = checked else { return Reached::Refused };
    let _ = (checked.element_count(), checked.byte_size_of(), checked.byte_size());
    match checked.plan() {
        Ok(plan) => plan_properties(a, &plan),
        Err(_) => Reached::Refused,
    }
}

/// Offsets inside the grid, `index_of` their inverse, offsets distinct, iteration in row-major
/// and memory order consistent with them, and sizes that agree: over every element of a
/// small grid, at the corners of a large one.
pub fn plan_properties(a: &ArrayShape, plan: &Plan) -> Reached {
    let dims = plan.dims().to_vec();
    assert_eq!(dims.len(), a.rank());
    let grid = plan.grid_len();
    assert!(plan.padded_len() >= grid);
    let bits = plan.element_bits();
    assert!(bits > 0);
    if let Some(total) = plan.padded_len().checked_mul(bits) {
        assert_eq!(plan.byte_len(), total.div_ceil(8), "{a}");
    }
    assert_eq!(a.nested_element_count().ok(), Some(plan.padded_len() as u64));
    assert_eq!(a.nested_byte_size().ok(), Some(plan.byte_len() as u64));
    // The descriptions a person reads never panic, whatever the numbers.
    let _ = plan.pad_reshape_transpose().to_string();
    let _ = plan.expanded_axis_names();
    let _ = (plan.index_program(), plan.inverse_program(), plan.tile_levels());

    let count = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if count == Some(0) {
        assert!(plan.row_major().next().is_none());
    }
    // Past the last index of a dimension is an error, not an offset.
    for d in 0..dims.len() {
        let mut out = vec![0; dims.len()];
        out[d] = dims[d];
        assert!(plan.offset(&out).is_err(), "{a}: {out:?}");
    }
    assert_eq!(plan.index_of(grid), None);

    if grid <= FULL_GRID {
        every_offset(a, plan, count.expect("a small grid holds few elements"));
        return Reached::Full;
    }
    if count != Some(0) {
        // Corners: all first, all last, and each dimension last alone.
        let last: Vec<usize> = dims.iter().map(|&d| d - 1).collect();
        let mut corners = vec![vec![0; dims.len()], last];
        for d in 0..dims.len() {
            let mut c = vec![0; dims.len()];
            c[d] = dims[d] - 1;
            corners.push(c);
        }
        let mut seen = Vec::new();
        for c in &corners {
            let off = plan.offset(c).expect("an index inside the dims has an offset");
            assert!(off < grid, "{a}: {c:?} at {off} of {grid}");
            assert_eq!(plan.offset_unchecked(c), off);
            assert_eq!(plan.index_of(off).as_ref(), Some(c), "{a}: offset {off}");
            seen.push((off, c));
        }
        seen.sort();
        seen.dedup();
        for w in seen.windows(2) {
            assert!(w[0].0 != w[1].0, "{a}: {:?} and {:?} share offset {}", w[0].1, w[1].1, w[0].0);
        }
    }
    Reached::Sampled
}

/// Every element of a grid of at most [`FULL_GRID`] positions.
fn every_offset(a: &ArrayShape, plan: &Plan, count: usize) {
    let grid = plan.grid_len();
    let mut owner: Vec<Option<Vec<usize>>> = vec![None; grid];
    let mut it = plan.row_major();
    let mut n = 0;
    while let Some((ix, off)) = it.next_ref() {
        assert!(off < grid, "{a}: {ix:?} at {off} of {grid}");
        assert_eq!(plan.offset(ix).ok(), Some(off), "{a}: {ix:?}");
        assert_eq!(plan.offset_unchecked(ix), off);
        assert_eq!(plan.index_of(off).as_deref(), Some(ix), "{a}: offset {off}");
        if let Some(other) = &owner[off] {
            panic!("{a}: {other:?} and {ix:?} share offset {off}");
        }
        owner[off] = Some(ix.to_vec());
        n += 1;
    }
    assert_eq!(n, count, "{a}");
    let mut memory = plan.memory_order();
    let mut off = 0;
    while let Some(ix) = memory.next_ref() {
        assert_eq!(ix, owner[off].as_deref(), "{a}: offset {off}");
        off += 1;
    }
    assert_eq!(off, grid, "{a}");
    // Offsets of padding have no index.
    for (off, o) in owner.iter().enumerate() {
        if o.is_none() {
            assert_eq!(plan.index_of(off), None, "{a}: padding at {off}");
        }
    }
}

/// Element types with the storage widths (`E(n)`, 0 for the type's own) that make sense for
/// them; [`any_array`] sometimes takes any `E` instead, for the verifier's errors.
const TYPES: &[(PrimitiveType, &[i64])] = &[
    (PrimitiveType::F32, &[0]),
    (PrimitiveType::Bf16, &[0]),
    (PrimitiveType::S8, &[0]),
    (PrimitiveType::F64, &[0]),
    (PrimitiveType::C64, &[0]),
    (PrimitiveType::C128, &[0]),
    (PrimitiveType::S4, &[0, 4]),
    (PrimitiveType::U4, &[4]),
    (PrimitiveType::U2, &[0, 2]),
    (PrimitiveType::Pred, &[0, 1]),
    (PrimitiveType::S1, &[1]),
    (PrimitiveType::F6e3m2fn, &[0, 6]),
    (PrimitiveType::U8, &[0, 12, 24]),
];

/// Which structured value to build: mostly ordinary, sometimes extreme.
fn weighted(u: &mut Unstructured, common: u8) -> Result<bool> {
    Ok(u.arbitrary::<u8>()? < common)
}

fn any_size(u: &mut Unstructured) -> Result<u64> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 => 0,
        1..=3 => 1,
        4..=11 => u.int_in_range(2..=9)?,
        12 | 13 => u.int_in_range(10..=40)?,
        14 => u.int_in_range(41..=5000)?,
        _ => u.int_in_range(0..=i64::MAX as u64)?,
    })
}

fn any_tile(u: &mut Unstructured, rank: usize) -> Result<Tile> {
    // An empty tile `()` is an error; rarely generated. (Exhausted bytes read as zeros,
    // so zero stands for the common choice throughout.)
    let len = if weighted(u, 250)? { 1 + u.int_in_range(0..=rank + 1)? } else { 0 };
    let mut dims = Vec::with_capacity(len);
    for _ in 0..len {
        dims.push(match u.int_in_range(0u8..=19)? {
            0..=2 => TileDim::Combine,
            3..=9 => TileDim::Size(*u.choose(&[1, 2, 4, 8, 128])?),
            10..=17 => TileDim::Size(u.int_in_range(1..=9)?),
            18 => TileDim::Size(0),
            _ => TileDim::Size(u.int_in_range(1..=u32::MAX as u64 + 2)?),
        });
    }
    Ok(Tile { dims })
}

fn permutation(u: &mut Unstructured, n: usize) -> Result<Vec<i64>> {
    let mut p: Vec<i64> = (0..n as i64).rev().collect();
    if weighted(u, 96)? {
        return Ok(p); // the default order, most common in practice
    }
    for i in (1..n).rev() {
        let j = u.int_in_range(0..=i)?;
        p.swap(i, j);
    }
    Ok(p)
}

/// A layout of rank `rank` storing `element_bits` bits (0: the type's own).
fn any_layout(u: &mut Unstructured, rank: usize, element_bits: i64) -> Result<Layout> {
    let mut m2m = permutation(u, rank)?;
    if rank > 0 && !weighted(u, 250)? {
        let i = u.int_in_range(0..=rank - 1)?;
        m2m[i] = u.int_in_range(-1..=rank as i64)?; // a duplicate or out of range, or not
    }
    let mut layout = Layout::new(m2m);
    let levels = match u.int_in_range(0u8..=15)? {
        0..=3 => 0,
        4..=9 => 1,
        10..=12 => 2,
        13 | 14 => 3,
        _ => u.int_in_range(4..=17)?,
    };
    for _ in 0..levels {
        layout.tiles.push(any_tile(u, rank)?);
    }
    layout.tail_padding_alignment_in_elements = match u.int_in_range(0u8..=9)? {
        0..=6 => 1,
        7 | 8 => u.int_in_range(2..=9)?,
        _ => u.int_in_range(-1..=1 << 20)?,
    };
    layout.element_size_in_bits =
        if weighted(u, 250)? { element_bits } else { u.int_in_range(-1..=130)? };
    if !weighted(u, 230)? {
        layout.memory_space = u.int_in_range(-1..=5)?;
    }
    if !weighted(u, 245)? {
        let dimension = u.int_in_range(-1..=rank as i64)?;
        let split_indices = vec![u.int_in_range(-1..=64)?];
        layout.split_configs.push(SplitConfig { dimension, split_indices });
    }
    Ok(layout)
}

fn any_dims(u: &mut Unstructured) -> Result<Vec<Dim>> {
    let rank = match u.int_in_range(0u8..=15)? {
        0..=13 => u.int_in_range(0..=4)?,
        _ => u.int_in_range(5..=12)?,
    };
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        let size = any_size(u)?;
        dims.push(match u.int_in_range(0u8..=31)? {
            0 => Dim::Bounded(size),
            1 => Dim::Unbounded,
            _ => Dim::Static(size),
        });
    }
    Ok(dims)
}

/// An array shape: one of the element types the properties cover (`TYPES`), ranks 0 to 12,
/// any layout.
pub fn any_array(u: &mut Unstructured) -> Result<ArrayShape> {
    let &(element_type, widths) = u.choose(TYPES)?;
    let dims = any_dims(u)?;
    let bits = *u.choose(widths)?;
    let layout = any_layout(u, dims.len(), bits)?;
    let layout = if weighted(u, 240)? { Some(layout) } else { None };
    Ok(ArrayShape { element_type, dims, layout })
}

// ---------------------------------------------------------------------------------------------
// (c) Relayout

/// Two layouts of one array from the bytes (or, after a 0 byte, two shape texts on two
/// lines), moved between with every engine's properties.
pub fn relayout_case(data: &[u8]) -> Reached {
    let pair = if let Some((&0, text)) = data.split_first() {
        let text = String::from_utf8_lossy(text);
        let mut lines = text.splitn(2, '\n');
        let mut read = || lines.next().and_then(|l| l.parse::<ArrayShape>().ok());
        let (Some(from), Some(to)) = (read(), read()) else { return Reached::Nothing };
        (from, to, 0x5eed)
    } else {
        let mut u = Unstructured::new(data);
        match any_pair(&mut u) {
            Ok(p) => p,
            Err(_) => return Reached::Nothing,
        }
    };
    relayout_properties(&pair.0, &pair.1, pair.2)
}

/// Two layouts of one array, static dims only, mostly valid, and a seed for the values.
fn any_pair(u: &mut Unstructured) -> Result<(ArrayShape, ArrayShape, u64)> {
    let &(element_type, widths) = u.choose(TYPES)?;
    let rank = u.int_in_range(0..=4)?;
    let mut dims = Vec::with_capacity(rank);
    for _ in 0..rank {
        dims.push(match u.int_in_range(0u8..=15)? {
            0 => 0,
            1..=3 => 1,
            4..=12 => u.int_in_range(2..=9)?,
            _ => u.int_in_range(10..=40)?,
        });
    }
    let side = |u: &mut Unstructured| -> Result<ArrayShape> {
        let bits = *u.choose(widths)?;
        let mut layout = any_layout(u, rank, bits)?;
        layout.tiles.truncate(3);
        // Mostly valid: a relayout of invalid layouts is only an error.
        if weighted(u, 230)? {
            layout.minor_to_major = permutation(u, rank)?;
            layout.element_size_in_bits = *u.choose(widths)?;
            layout.split_configs.clear();
            layout.memory_space = 0;
            layout.tiles.retain(|t| !t.dims.is_empty());
            let a = &mut layout.tail_padding_alignment_in_elements;
            *a = (*a).clamp(1, 9);
            for t in &mut layout.tiles {
                for d in &mut t.dims {
                    if let TileDim::Size(n) = d {
                        *n = (*n).clamp(1, 9);
                    }
                }
                if let Some(last @ TileDim::Combine) = t.dims.last_mut() {
                    *last = TileDim::Size(2);
                }
            }
        }
        Ok(ArrayShape::new(element_type, dims.iter().copied()).with_layout(layout))
    };
    let from = side(u)?;
    let mut to = side(u)?;
    // Sometimes a pair that does not match: another type, another size, another rank.
    match u.int_in_range(0u8..=63)? {
        61 => to.element_type = u.choose(TYPES)?.0,
        62 if rank > 0 => to.dims[0] = Dim::Static(u.int_in_range(0..=9)?),
        63 => to = ArrayShape::new(element_type, dims.iter().chain(&[2]).copied()),
        _ => {}
    }
    Ok((from, to, u.arbitrary()?))
}

fn value(id: usize, seed: u64) -> u64 {
    (id as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
}

fn garbage(len: usize, seed: u64) -> Vec<u8> {
    (0..len).map(|i| (value(i, seed) >> 13) as u8).collect()
}

/// Copies the low `min(sb, db)` bits of the element at `s` (of `sb` bits) in `src` into the
/// element at `d` (of `db` bits) in `dst`, one bit at a time: slow, and plainly right for any
/// widths (`E(n)` may exceed 64 bits and differ between the sides).
fn copy_element(src: &[u8], s: usize, sb: usize, dst: &mut [u8], d: usize, db: usize) {
    for k in 0..sb.min(db) {
        let (from, to) = (s * sb + k, d * db + k);
        let bit = (src[from / 8] >> (from % 8)) & 1;
        dst[to / 8] = (dst[to / 8] & !(1 << (to % 8))) | (bit << (to % 8));
    }
}

/// The expected destination: zero, then each element where the destination's plan puts it.
fn reference(from: &Plan, to: &Plan, src: &[u8]) -> Vec<u8> {
    let mut dst = vec![0; to.byte_len()];
    let (sb, db) = (from.element_bits(), to.element_bits());
    let mut it = from.row_major();
    while let Some((ix, s)) = it.next_ref() {
        let d = to.offset(ix).expect("both sides have the same dims");
        copy_element(src, s, sb, &mut dst, d, db);
    }
    dst
}

/// `plan` with every setting a run may choose (every SIMD level this machine runs,
/// streaming and cached stores, both loop orders, the block sizes a measuring run tries:
/// `__candidates`), and `run_parallel` at every level with non-temporal stores forced on (by
/// default only destinations of megabytes stream), into a destination on a cache line, 16 or
/// 32 bytes past one, or one byte off any alignment (chosen by `seed`), each run equal to
/// `expected` bit for bit, the bytes around the destination untouched. Then a run that
/// measures: slices of the largest block, each with another setting, the rest with the
/// fastest, remembered for the process (the run after it takes it); into a destination on a
/// cache line and into the one above (measured apart). Returns whether that run measured.
/// `case` names the pair in a failure's message.
pub fn every_setting(
    case: &dyn std::fmt::Display,
    plan: &RelayoutPlan,
    src: &[u8],
    expected: &[u8],
    seed: u64,
) -> bool {
    let offset = [0, 16, 32, 1][(seed % 4) as usize];
    let mut buf = garbage(plan.dst_len() + 128, seed ^ 17);
    let at = buf.as_ptr().align_offset(64) + offset;
    let around = [buf[..at].to_vec(), buf[at + plan.dst_len()..].to_vec()];
    let mut into = |what: &dyn std::fmt::Display, run: &dyn Fn(&mut [u8])| {
        buf[at..at + plan.dst_len()].fill(0xA5);
        run(&mut buf[at..at + plan.dst_len()]);
        assert!(buf[at..at + plan.dst_len()] == *expected, "{case}: {what}, offset {offset}");
        let untouched = buf[..at] == around[0] && buf[at + plan.dst_len()..] == around[1];
        assert!(untouched, "{case}: {what} wrote outside the destination");
    };
    for simd in Simd::supported() {
        let p = plan.clone().with_simd(simd);
        for choice in p.__candidates() {
            into(&choice, &|d| p.__run_with(&choice, src, d).unwrap());
        }
        let p = p.with_stream_min(0);
        into(&format_args!("{simd:?} parallel"), &|d| p.run_parallel(src, d).unwrap());
    }
    let measuring = plan.clone().__with_measure_min(0);
    let owned = measuring.run_owned(src).unwrap();
    assert!(owned[..] == *expected, "{case}: measuring, {}", measuring.choice());
    let measured = matches!(measuring.choice().how(), ChosenBy::Measured { .. });
    into(&"measuring", &|d| measuring.run(src, d).unwrap());
    into(&"after measuring", &|d| measuring.run(src, d).unwrap());
    measured
}

/// `run` equals the general path and the reference; padding is zero; errors touch nothing.
pub fn relayout_properties(from: &ArrayShape, to: &ArrayShape, seed: u64) -> Reached {
    let plan = RelayoutPlan::new(from, to);
    let (fp, tp) = (from.plan(), to.plan());
    let same_array = from.element_type == to.element_type && {
        let (a, b) = (from.dims.iter(), to.dims.iter());
        let bound = |d: &Dim| match *d {
            Dim::Static(n) | Dim::Bounded(n) => Some(n),
            Dim::Unbounded => None,
        };
        a.len() == b.len() && a.map(bound).eq(to.dims.iter().map(bound))
    };
    let (plan, fp, tp) = match (plan, fp, tp) {
        (Ok(plan), Ok(fp), Ok(tp)) => {
            assert!(same_array, "a relayout between different arrays: {from} -> {to}");
            (plan, fp, tp)
        }
        (Err(e), ..) => {
            // Refused before touching anything: the free function leaves `dst` as it was.
            let mut dst = vec![0x77u8; 64];
            let r = relayout(&[0; 64], &from.clone().into(), &mut dst, &to.clone().into());
            assert_eq!(r.map_err(|e| e.kind()), Err(e.kind()));
            assert!(dst.iter().all(|&b| b == 0x77));
            return Reached::Refused;
        }
        (Ok(_), Err(e), _) | (Ok(_), _, Err(e)) => {
            panic!("a relayout plan for a shape without a plan: {from} -> {to}: {e}")
        }
    };
    assert_eq!((plan.src_len(), plan.dst_len()), (fp.byte_len(), tp.byte_len()));
    if plan.src_len() > MAX_BUFFER || plan.dst_len() > MAX_BUFFER {
        return Reached::Sampled;
    }

    // Source: values everywhere, garbage in its padding; destinations: garbage everywhere.
    let mut src = garbage(plan.src_len(), seed);
    let bits = fp.element_bits();
    if bits <= 64 {
        let mut it = fp.row_major();
        let mut id = 0;
        while let Some((_, off)) = it.next_ref() {
            write_packed(&mut src, off, bits as u32, value(id, seed)).unwrap();
            id += 1;
        }
    }
    let expected = reference(&fp, &tp, &src);
    let mut dst = garbage(plan.dst_len(), !seed);
    plan.run(&src, &mut dst).unwrap();
    assert!(dst == expected, "{from} -> {to}: run differs from the reference");
    let mut general = garbage(plan.dst_len(), seed ^ 3);
    plan.__run_general(&src, &mut general).unwrap();
    assert!(general == expected, "{from} -> {to}: the general path differs from the reference");
    let mut par = garbage(plan.dst_len(), seed ^ 5);
    plan.run_parallel(&src, &mut par).unwrap();
    assert!(par == expected, "{from} -> {to}: run_parallel differs");
    let mut free = garbage(plan.dst_len(), seed ^ 9);
    relayout(&src, &from.clone().into(), &mut free, &to.clone().into()).unwrap();
    assert!(free == expected, "{from} -> {to}: relayout differs");
    let measured = every_setting(&format_args!("{from} -> {to}"), &plan, &src, &expected, seed);

    // Every bit that holds no element is zero: padding, the L tail, the last byte's rest; and
    // an element narrower on the source side has zero high bits.
    let (sb, db) = (fp.element_bits(), tp.element_bits());
    let zero = |bits: core::ops::Range<usize>, what: &str| {
        for bit in bits {
            assert_eq!((dst[bit / 8] >> (bit % 8)) & 1, 0, "{from} -> {to}: bit {bit}, {what}");
        }
    };
    let mut memory = tp.memory_order();
    let mut off = 0;
    while let Some(ix) = memory.next_ref() {
        if ix.is_none() {
            zero(off * db..(off + 1) * db, "padding");
        } else if sb < db {
            zero(off * db + sb..(off + 1) * db, "widened");
        }
        off += 1;
    }
    zero(tp.grid_len() * db..dst.len() * 8, "past the grid");

    // A buffer one byte too long or too short is refused, the destination untouched.
    let before = dst.clone();
    let longer_src = vec![0u8; plan.src_len() + 1];
    assert_eq!(plan.run(&longer_src, &mut dst).unwrap_err().kind(), ErrorKind::BufferLength);
    assert_eq!(
        plan.__run_general(&longer_src, &mut dst).unwrap_err().kind(),
        ErrorKind::BufferLength
    );
    if let Some(short) = plan.src_len().checked_sub(1) {
        let r = plan.run_parallel(&src[..short], &mut dst);
        assert_eq!(r.unwrap_err().kind(), ErrorKind::BufferLength);
    }
    assert!(dst == before);
    let mut longer = garbage(plan.dst_len() + 1, seed);
    let kept = longer.clone();
    assert_eq!(plan.run(&src, &mut longer).unwrap_err().kind(), ErrorKind::BufferLength);
    assert!(longer == kept);
    if let Some(short) = plan.dst_len().checked_sub(1) {
        let r = plan.run(&src, &mut longer[..short]);
        assert_eq!(r.unwrap_err().kind(), ErrorKind::BufferLength);
        assert!(longer == kept);
    }
    if measured {
        Reached::Measured
    } else {
        Reached::Full
    }
}
