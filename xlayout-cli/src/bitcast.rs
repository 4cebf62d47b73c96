//! `xlayout bitcast FROM TO [--transpose D0,D1,...]`: whether a reshape (or, with
//! `--transpose`, a transpose) from FROM to TO keeps every element where it is, from
//! [`xlayout::algebra`]; the layout of TO that would; exit status 0 when it does, 1 when it
//! does not, 2 for a shape that cannot be read. No analysis happens here.

use serde::Serialize;
use xlayout::algebra::{self, xla, Reason};
use xlayout::hlo::{units, REPORT_VERSION};
use xlayout::{ArrayShape, Error};

use super::args::{Bitcast, Format};
use super::io::{shape_text, Failure, Out, Stdin};
use super::output::{flat, record, warn, Cell};
use super::Status;

/// The answer: its JSON keys are the TSV and CSV columns (a contract with scripts).
#[derive(Serialize)]
struct Answer {
    from: String,
    to: String,
    transpose: Option<Vec<usize>>,
    bitcast: bool,
    /// TO's dimensions under a layout that makes it a bitcast (TO's tiles kept).
    bitcast_layout: Option<String>,
    reason: String,
    /// The first element that moves: its row-major position, indices and offsets.
    moved_position: Option<u64>,
    moved_from_index: Option<Vec<u64>>,
    moved_to_index: Option<Vec<u64>>,
    moved_from_offset: Option<u64>,
    moved_to_offset: Option<u64>,
    /// What a copy would move: FROM's bytes read, TO's written (XLA's ArraySize).
    read_bytes: Option<u64>,
    written_bytes: Option<u64>,
    /// What XLA's open-source ReshapeIsBitcast / TransposeIsBitcast answers (no tiles).
    xla_open_source: bool,
}

/// The JSON output: the answer with the report version.
#[derive(Serialize)]
struct Envelope<'a> {
    version: u32,
    #[serde(flatten)]
    answer: &'a Answer,
}

/// The TSV and CSV header: the keys of [`Answer`].
pub const COLUMNS: &[&str] = &[
    "from",
    "to",
    "transpose",
    "bitcast",
    "bitcast_layout",
    "reason",
    "moved_position",
    "moved_from_index",
    "moved_to_index",
    "moved_from_offset",
    "moved_to_offset",
    "read_bytes",
    "written_bytes",
    "xla_open_source",
];

/// A shape argument, or (status 2) its error with a caret under the text.
fn shape(text: String) -> Result<ArrayShape, Status> {
    text.parse::<ArrayShape>().map_err(|error| {
        warn(format_args!("{}", error.render(&text)));
        2
    })
}

impl Bitcast {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let (from, to) =
            match (shape(shape_text(&self.from, stdin)?), shape(shape_text(&self.to, stdin)?)) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return Ok(2),
            };
        let dims = self.transpose.as_ref().map(|d| d.0.clone());
        let answer = match answer(&from, &to, dims) {
            Ok(a) => a,
            Err(e) => {
                warn(format_args!("xlayout: {}", e.message()));
                return Ok(2);
            }
        };
        // One answer: for a person unless a script asks for rows or JSON.
        match self.format.unwrap_or(Format::Table) {
            Format::Json => {
                out.json(&Envelope { version: REPORT_VERSION, answer: &answer })?;
                out.text("\n")?;
            }
            Format::Table => out.text(&text(&answer))?,
            format => {
                let header: Vec<Cell> = COLUMNS.iter().map(|c| Cell::Text((*c).into())).collect();
                out.text(&record(format, &header))?;
                let cells: Vec<Cell> = flat(&answer)?.into_iter().map(|(_, c)| c).collect();
                out.text(&record(format, &cells))?;
            }
        }
        Ok(if answer.bitcast { 0 } else { 1 })
    }
}

fn answer(from: &ArrayShape, to: &ArrayShape, dims: Option<Vec<usize>>) -> Result<Answer, Error> {
    let (reason, layout, xla_says) = match &dims {
        Some(d) => (
            algebra::check_transpose(from, to, d, false)?,
            algebra::transpose_bitcast_layout(from, to, d)?,
            xla::transpose_is_bitcast(from, to, d, false)?,
        ),
        None => (
            algebra::check_reshape(from, to, false)?,
            algebra::reshape_bitcast_layout(from, to)?,
            xla::reshape_is_bitcast(from, to, false)?,
        ),
    };
    let bitcast = reason.is_bitcast();
    let moved = match &reason {
        Reason::Moves(m) => Some(m.clone()),
        _ => None,
    };
    let (read_bytes, written_bytes) =
        if bitcast { (None, None) } else { (from.byte_size().ok(), to.byte_size().ok()) };
    Ok(Answer {
        from: from.to_string(),
        to: to.to_string(),
        transpose: dims,
        bitcast,
        bitcast_layout: layout.map(|l| l.to_string()),
        reason: reason.to_string(),
        moved_position: moved.as_ref().map(|m| m.position),
        moved_from_index: moved.as_ref().map(|m| m.from_index.clone()),
        moved_to_index: moved.as_ref().map(|m| m.to_index.clone()),
        moved_from_offset: moved.as_ref().map(|m| m.from_offset),
        moved_to_offset: moved.as_ref().map(|m| m.to_offset),
        read_bytes,
        written_bytes,
        xla_open_source: xla_says,
    })
}

/// `4096 bytes (4.00K)`.
fn bytes(n: u64) -> String {
    let shown = units::oom_bytes(n);
    if shown == format!("{n}B") {
        format!("{n} bytes")
    } else {
        format!("{n} bytes ({shown})")
    }
}

/// The answer for a person.
fn text(a: &Answer) -> String {
    let what = if a.transpose.is_some() { "transpose" } else { "reshape" };
    let xla = if a.transpose.is_some() { "TransposeIsBitcast" } else { "ReshapeIsBitcast" };
    let mut s = if a.bitcast {
        format!("a bitcast: {}\n", a.reason)
    } else {
        format!("not a bitcast: {}\n", a.reason)
    };
    if let (Some(r), Some(w)) = (a.read_bytes, a.written_bytes) {
        s += &format!(
            "a copy would move {}: it reads {} and writes {}\n",
            bytes(r.saturating_add(w)),
            bytes(r),
            bytes(w)
        );
    }
    if !a.bitcast {
        match &a.bitcast_layout {
            Some(l) => s += &format!("a bitcast with TO laid out as {l}\n"),
            None => s += "no layout of TO's dimensions (its tiles kept) makes it a bitcast\n",
        }
    }
    if a.xla_open_source != a.bitcast {
        s += &format!(
            "XLA's open-source {xla} says {}: it looks at minor_to_major only, not tiles or sizes\n",
            if a.xla_open_source { "it is one" } else { "it is not" }
        );
    }
    let dims = a.transpose.as_ref().map_or_else(String::new, |d| format!(" with dimensions {d:?}"));
    s + &format!("  {what}{dims} from {}\n  to {}\n", a.from, a.to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_answers_keys() {
        let a = answer(&"f32[2]".parse().unwrap(), &"f32[2]".parse().unwrap(), None).unwrap();
        assert_eq!(super::super::output::keys(&a), COLUMNS);
    }
}
