//! A shape described for a person, one labelled line per fact: the text of `xlayout explain`
//! and of `Shape.explain()` in Python, written once here.
//!
//! Every number comes from layout-runtime (the plan, XLA's size functions); this module only
//! arranges them into sentences.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use crate::{ArrayShape, Dim, Error, Layout, Shape, TileDim};

/// The description of `shape`: arrays directly, tuples and buffers element by element, one
/// labelled line per fact (element type and bits, dimensions, physical order, each tile level
/// and what it covers, the tiled index space, byte size, unpadded size, padding, memory space).
///
/// ```
/// use xlayout::{explain::explain, Shape};
///
/// let s: Shape = "bf16[8,300]{1,0:T(8,128)(2,1)}".parse()?;
/// let text = explain(&s)?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[0], "shape        bf16[8,300]{1,0:T(8,128)(2,1)}");
/// assert!(text.contains("\nbyte size    6,144 bytes (6.00 KiB)  (XLA's ShapeUtil::ArraySize)\n"));
/// assert!(text.contains("\nunpadded     4,800 bytes (4.69 KiB)  (ShapeUtil::ByteSizeOf)\n"));
/// # Ok::<(), xlayout::Error>(())
/// ```
///
/// A shape whose layout has no index space is still described, with what is missing said:
///
/// ```
/// use xlayout::{explain::explain, Shape};
/// let s: Shape = "f32[3,5]{1,0:T(*,2)}".parse()?;
/// assert!(explain(&s)?.contains("\nbyte size    none: "));
/// # Ok::<(), xlayout::Error>(())
/// ```
pub fn explain(shape: &Shape) -> Result<String, Error> {
    let mut out = String::new();
    explain_into(shape, "", &mut out)?;
    Ok(out)
}

fn explain_into(shape: &Shape, path: &str, out: &mut String) -> Result<(), Error> {
    match shape {
        Shape::Array(a) => array(a, out),
        Shape::Buffer(a) => {
            line(out, "buffer", "b(...): one array, described below");
            array(a, out)
        }
        Shape::Token => {
            line(out, "shape", "token[]: an ordering token, no data");
            Ok(())
        }
        Shape::Opaque => {
            line(out, "shape", "opaque[]: a pointer-sized value, no layout");
            Ok(())
        }
        Shape::Tuple(elements) => {
            let what = format!("a tuple of {} elements (no layout of its own)", elements.len());
            line(out, "shape", &what);
            for (i, e) in elements.iter().enumerate() {
                let here = if path.is_empty() { format!("{i}") } else { format!("{path}.{i}") };
                let _ = writeln!(out, "\n[element {here}] {e}");
                explain_into(e, &here, out)?;
            }
            Ok(())
        }
    }
}

fn line(out: &mut String, label: &str, text: &str) {
    let _ = writeln!(out, "{label:<13}{text}");
}

/// `1,234,567`: big sizes are easier to read with separators.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut s = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            s.push(',');
        }
        s.push(c);
    }
    s
}

fn bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match UNITS.iter().find(|(_, size)| n >= *size) {
        Some((unit, size)) => {
            format!("{} bytes ({:.2} {unit})", grouped(n), n as f64 / *size as f64)
        }
        None => format!("{} bytes", grouped(n)),
    }
}

fn memory_space(s: i64) -> &'static str {
    // Constants of xla/layout.h and docs/shapes.md.
    match s {
        0 => "default device memory",
        1 => "fast memory (TPU VMEM)",
        5 => "pinned host memory",
        6 => "unpinned host memory",
        2 | 3 => "a device-specific memory space",
        _ => "a memory space XLA gives no name",
    }
}

fn tile_text(dims: &[TileDim]) -> String {
    let entries: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("({})", entries.join(","))
}

fn array(a: &ArrayShape, out: &mut String) -> Result<(), Error> {
    let layout: Layout = a.layout_or_default().into_owned();
    let t = a.element_type;
    line(out, "shape", &a.to_string());

    let storage = match layout.element_size_in_bits {
        0 if t.is_sub_byte() || t.bit_width() == 1 => {
            format!(
                "stored one per byte ({} bits unused; `E({})` would pack them)",
                8 - t.bit_width(),
                t.bit_width()
            )
        }
        0 => format!("{} bytes each", t.byte_width()),
        e => format!("packed, {e} bits each (`E({e})`; first element in the low bits)"),
    };
    // XLA's parser and layout verifier take `E(n)` on any type; its CPU and GPU compilers
    // (`CpuGpuShapeVerifier`) reject it on a type that is not sub-byte, `pred` included.
    let storage = if layout.element_size_in_bits != 0 && !t.is_sub_byte() {
        format!(
            "{storage}; XLA's CPU and GPU compilers reject `E(n)` on a type that is not sub-byte"
        )
    } else {
        storage
    };
    line(out, "element", &format!("{t}, {} bits, {storage}", t.bit_width()));

    let dims: Vec<String> = a
        .dims
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            Dim::Static(n) => format!("d{i}={n}"),
            Dim::Bounded(n) => format!("d{i}<={n} (dynamic, sized by its bound)"),
            Dim::Unbounded => format!("d{i}=? (unbounded)"),
        })
        .collect();
    let dims = if dims.is_empty() { String::from("none (a scalar)") } else { dims.join(", ") };
    line(out, "dims", &dims);

    let physical: Vec<String> = layout
        .major_to_minor()
        .iter()
        .map(|&l| {
            let size = usize::try_from(l).ok().and_then(|l| a.dims.get(l));
            match size {
                Some(d) => format!("d{l} ({d})"),
                None => format!("d{l}"),
            }
        })
        .collect();
    if !physical.is_empty() {
        let order = physical.join(", ");
        let row_major = layout.minor_to_major == Layout::default_for_rank(a.rank()).minor_to_major;
        let note = if row_major { "  [row-major, XLA's default]" } else { "" };
        line(out, "physical", &format!("major to minor: {order}{note}"));
    }

    let plan = a.plan();
    if layout.tiles.is_empty() {
        line(out, "tiling", "none: elements in physical order, no padding");
    } else if let Ok(plan) = &plan {
        let names = plan.expanded_axis_names();
        for (i, (tile, level)) in layout.tiles.iter().zip(plan.tile_levels()).enumerate() {
            let before = level.with_leading_axes();
            let n = tile.dims.len();
            let covered = &before[before.len() - n..];
            // Tile entries are user numbers: their product may not fit.
            let elements = level.tile.iter().try_fold(1u64, |acc, &t| acc.checked_mul(t as u64));
            let elements = match elements {
                Some(e) => format!("{} elements per tile", grouped(e)),
                None => String::from("more elements per tile than 2^64 (the product overflows)"),
            };
            let mut text = format!(
                "{} covers the {} most-minor axes of {:?}, sizes {:?}; {elements}",
                tile_text(&tile.dims),
                n,
                before,
                covered,
            );
            if level.expand_dims > 0 {
                let _ = write!(
                    text,
                    "; {} leading size-1 axes added (tile longer than the space)",
                    level.expand_dims
                );
            }
            if tile.dims.contains(&TileDim::Combine) {
                let _ = write!(text, "; `*` merges axes first, giving {:?}", level.merged_shape);
            }
            if level.pad_to != level.merged_shape {
                let _ = write!(text, "; padded to {:?}", level.pad_to);
            }
            line(out, &format!("tile {i}"), &text);
        }
        let axes: Vec<String> =
            plan.expanded_shape().iter().zip(&names).map(|(s, n)| format!("{n}:{s}")).collect();
        line(out, "index space", &format!("[{}]  (offset = row-major position)", axes.join(", ")));
    }

    match &plan {
        Ok(plan) => {
            let logical: u64 = plan.dims().iter().map(|&d| d as u64).product();
            let grid = plan.grid_len() as u64;
            let text = format!(
                "{} elements for {} logical ({} padding)",
                grouped(grid),
                grouped(logical),
                grouped(grid - logical)
            );
            line(out, "grid", &text);
            if plan.padded_len() != plan.grid_len() {
                let l = layout.tail_padding_alignment_in_elements;
                line(
                    out,
                    "tail",
                    &format!(
                        "L({l}): rounded up to {} elements",
                        grouped(plan.padded_len() as u64)
                    ),
                );
            }
        }
        Err(e) => line(out, "grid", &format!("none: {}", e.message())),
    }

    let data = a.byte_size_of();
    match a.byte_size() {
        Ok(size) => {
            line(out, "byte size", &format!("{}  (XLA's ShapeUtil::ArraySize)", bytes(size)));
            if let Ok(data) = data {
                line(out, "unpadded", &format!("{}  (ShapeUtil::ByteSizeOf)", bytes(data)));
                let overhead = if data == 0 {
                    String::from("none (no data)")
                } else {
                    format!(
                        "{} bytes, {:.2}% over the unpadded size",
                        grouped(size.saturating_sub(data)),
                        (size as f64 - data as f64) / data as f64 * 100.0
                    )
                };
                line(out, "padding", &overhead);
            }
        }
        Err(e) => line(out, "byte size", &format!("none: {}", e.message())),
    }
    if let Ok(plan) = &plan {
        let nested = plan.byte_len() as u64;
        if a.byte_size().ok() != Some(nested) {
            let why = "every tile level and `L` counted, which XLA's ArraySize does not";
            line(out, "nested size", &format!("{}  ({why})", bytes(nested)));
        }
    }
    line(
        out,
        "memory space",
        &format!("S({}): {}", layout.memory_space, memory_space(layout.memory_space)),
    );
    if !layout.split_configs.is_empty() {
        let splits: Vec<String> = layout.split_configs.iter().map(ToString::to_string).collect();
        line(
            out,
            "splits",
            &format!(
                "{} (physical dimension: split indices; sized by the largest piece)",
                splits.join("")
            ),
        );
    }
    if layout.dynamic_shape_metadata_prefix_bytes > 0 {
        let m = layout.dynamic_shape_metadata_prefix_bytes;
        line(
            out,
            "metadata",
            &format!("M({m}): {m} bytes of dynamic-size metadata before the data, in no size"),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element_line(text: &str) -> String {
        let shape: Shape = text.parse().expect("valid");
        let out = explain(&shape).expect("explained");
        out.lines().find(|l| l.starts_with("element")).expect("an element line").to_string()
    }

    #[test]
    fn a_custom_element_size_on_a_type_that_is_not_sub_byte_says_what_xla_cpu_and_gpu_do() {
        assert_eq!(
            element_line("bf16[64,384]{1,0:T(8,128)(2,1)E(4)}"),
            "element      bf16, 16 bits, packed, 4 bits each (`E(4)`; first element in the low \
             bits); XLA's CPU and GPU compilers reject `E(n)` on a type that is not sub-byte"
        );
        // At the type's own width too: the verifier checks only that `E` is set.
        assert!(element_line("f32[4]{0:E(32)}").ends_with("on a type that is not sub-byte"));
        assert!(element_line("pred[8]{0:E(1)}").ends_with("on a type that is not sub-byte"));
        // Sub-byte types pack: nothing to add.
        assert_eq!(
            element_line("s4[3,5]{1,0:E(4)}"),
            "element      s4, 4 bits, packed, 4 bits each (`E(4)`; first element in the low bits)"
        );
        assert_eq!(element_line("f32[3,5]"), "element      f32, 32 bits, 4 bytes each");
    }
}
