//! `xlayout bitcast FROM TO [--transpose D0,D1,...]`: [`xlayout::bitcast::Answer`] — whether
//! a reshape (or, with `--transpose`, a transpose) from FROM to TO keeps every element where
//! it is, and the layout of TO that would — for a person, as JSON or as one TSV or CSV row;
//! exit status 0 when it is a bitcast, 1 when not, 2 for a shape that cannot be read. No
//! analysis happens here.

use serde::Serialize;
use xlayout::bitcast::Answer;
use xlayout::hlo::REPORT_VERSION;
use xlayout::ArrayShape;

use super::args::{Bitcast, Format};
use super::io::{shape_text, Failure, Out, Stdin};
use super::output::{flat, record, warn, Cell};
use super::Status;

/// The JSON output: the answer with the report version.
#[derive(Serialize)]
struct Envelope<'a> {
    version: u32,
    #[serde(flatten)]
    answer: &'a Answer,
}

/// The TSV and CSV header: the keys of [`Answer`] (a contract with scripts).
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
        let answer = match Answer::new(&from, &to, self.transpose.as_ref().map(|d| d.0.clone())) {
            Ok(a) => a,
            Err(e) => {
                warn(format_args!("xlayout: {}", e.message()));
                return Ok(2);
            }
        };
        // One answer: for a person unless a script asks for JSON or rows.
        match self.format.unwrap_or(Format::Table) {
            Format::Json => {
                out.json(&Envelope { version: REPORT_VERSION, answer: &answer })?;
                out.text("\n")?;
            }
            Format::Table => out.text(&answer.text())?,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_answers_keys() {
        let a = Answer::new(&"f32[2]".parse().unwrap(), &"f32[2]".parse().unwrap(), None).unwrap();
        assert_eq!(super::super::output::keys(&a), COLUMNS);
    }
}
