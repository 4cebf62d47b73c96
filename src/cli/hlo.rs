//! `xlayout hlo [FILE]`: every array shape in an HLO dump, validated and sized, with the
//! padding each layout costs. Shapes are found where an element type name followed by `[`
//! starts a word, and read with the runtime parser (`Shape::parse_prefix`), so whatever text
//! surrounds them (instruction names, operands, attributes) does not matter.

use std::collections::BTreeMap;
use std::fmt::Write;

use xlayout::{ArrayShape, Error, PrimitiveType, Shape};

/// Distinct shapes listed at most, by padding.
const TOP: usize = 20;

struct Seen {
    count: usize,
    first_line: usize,
}

/// Every array shape of `text`, with the line it is on (from 1).
fn shapes(text: &str) -> Vec<(usize, Result<ArrayShape, Error>)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            line += 1;
        }
        let starts_word = i == 0 || !word(bytes[i - 1]);
        if !(starts_word && bytes[i].is_ascii_lowercase()) {
            i += 1;
            continue;
        }
        let len = bytes[i..].iter().take_while(|&&b| word(b)).count();
        let is_type =
            PrimitiveType::from_name(&text[i..i + len]).is_some_and(|t| t.is_array_type());
        if !(is_type && bytes.get(i + len) == Some(&b'[')) {
            i += len;
            continue;
        }
        match Shape::parse_prefix(&text[i..]) {
            Ok((Shape::Array(a), end)) => {
                let checked = Shape::Array(a.clone()).validate().map(|()| a);
                found.push((line, checked));
                line += text[i..i + end].matches('\n').count();
                i += end;
            }
            Ok((_, end)) => i += end.max(len),
            Err(e) => {
                found.push((line, Err(e)));
                i += len;
            }
        }
    }
    found
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        String::from("-")
    } else {
        format!("{:.1}%", part as f64 / whole as f64 * 100.0)
    }
}

/// The report for a person, and whether every shape was valid.
pub fn report(name: &str, text: &str) -> (String, bool) {
    let found = shapes(text);
    let mut distinct: BTreeMap<String, (ArrayShape, Seen)> = BTreeMap::new();
    let mut invalid: Vec<(usize, Error)> = Vec::new();
    for (line, shape) in found.iter().cloned() {
        match shape {
            Ok(a) => {
                let seen = distinct
                    .entry(a.to_string())
                    .or_insert((a, Seen { count: 0, first_line: line }));
                seen.1.count += 1;
            }
            Err(e) => invalid.push((line, e)),
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{name}: {} array shapes, {} distinct, {} invalid",
        found.len(),
        distinct.len(),
        invalid.len()
    );
    // Sizes of each distinct shape once: the allocation (XLA's ArraySize) and the data.
    let mut rows: Vec<(u64, u64, &str, &Seen)> = Vec::new();
    let mut no_size = 0;
    for (text, (a, seen)) in &distinct {
        match (a.byte_size(), a.byte_size_of()) {
            (Ok(size), Ok(data)) => rows.push((size, data, text, seen)),
            _ => no_size += 1,
        }
    }
    let (size, data): (u64, u64) =
        rows.iter().fold((0, 0), |(s, d), r| (s.saturating_add(r.0), d.saturating_add(r.1)));
    let _ = writeln!(
        out,
        "distinct shapes, each once: {size} bytes allocated (ArraySize), {data} bytes of data, {} bytes of padding ({} over the data)",
        size - data.min(size),
        percent(size - data.min(size), data)
    );
    if no_size > 0 {
        let _ = writeln!(
            out,
            "({no_size} distinct shapes have no ArraySize: unbounded dims or `*` in a first tile)"
        );
    }
    rows.sort_by(|a, b| (b.0 - b.1.min(b.0)).cmp(&(a.0 - a.1.min(a.0))).then(a.2.cmp(b.2)));
    let padded: Vec<_> = rows.iter().filter(|r| r.0 > r.1).collect();
    if padded.is_empty() {
        let _ = writeln!(out, "no layout in the dump pads");
    } else {
        let _ = writeln!(out, "\nmost padding first (bytes each; `times` = occurrences in the text; line = first one):");
        let _ = writeln!(
            out,
            "{:>12} {:>12} {:>9} {:>6} {:>6}  shape",
            "allocated", "data", "overhead", "times", "line"
        );
        for (size, data, text, seen) in padded.iter().take(TOP) {
            let _ = writeln!(
                out,
                "{size:>12} {data:>12} {:>9} {:>6} {:>6}  {text}",
                percent(size - data, *data),
                seen.count,
                seen.first_line
            );
        }
        if padded.len() > TOP {
            let _ = writeln!(out, "... and {} more padded shapes", padded.len() - TOP);
        }
    }
    let mut spaces: BTreeMap<i64, usize> = BTreeMap::new();
    for (a, seen) in distinct.values() {
        *spaces.entry(a.layout_or_default().memory_space).or_default() += seen.count;
    }
    if spaces.keys().any(|&s| s != 0) {
        let list: Vec<String> = spaces.iter().map(|(s, n)| format!("S({s}): {n}")).collect();
        let _ = writeln!(out, "\nmemory spaces (occurrences): {}", list.join(", "));
    }
    if !invalid.is_empty() {
        let _ = writeln!(out, "\ninvalid shapes:");
        for (line, e) in &invalid {
            let _ = writeln!(out, "  line {line}: {}", e.message());
        }
    }
    (out, invalid.is_empty())
}
