//! Command dispatch. Each command takes its inputs from arguments or, when there are none,
//! one per non-empty line of standard input, and prints one `ok ...` or `err ...` line per
//! input. Exit status: 0 when every input was ok, 1 when any was not, 2 for a usage error.

use std::io::{BufRead, Write};

use xlayout::{Error, Shape};

const USAGE: &str = "\
usage: xlayout                          show the demo
       xlayout canon [SHAPE]...         XLA's printed form of each shape
       xlayout bytes [SHAPE]...         XLA's byte size (ShapeUtil::ArraySize)
       xlayout explain SHAPE            sizes, order, tiles and padding, for a person
       xlayout help                     this text

With no SHAPE, the scripting commands read one per non-empty line of standard input and
print `ok <answer>` or `err <message>` per input. Exit status: 0 when all were ok, 1 when
any was an error, 2 for a usage error.";

/// Exit status of a run.
pub type Status = u8;

/// Runs the command line `args` (without the program name).
pub fn run(args: &[String], stdin: &mut dyn BufRead, out: &mut dyn Write) -> Status {
    let Some((command, rest)) = args.split_first() else {
        return usage_error(out, "");
    };
    match command.as_str() {
        "canon" => per_input(rest, stdin, out, |text| {
            text.parse::<Shape>().map(|s| s.to_string()).map_err(|e| one_line(&e))
        }),
        "bytes" => per_input(rest, stdin, out, |text| bytes(text).map_err(|e| one_line(&e))),
        "explain" => match rest {
            [shape] => explain(shape, out),
            _ => usage_error(out, "explain takes exactly one SHAPE"),
        },
        "help" | "--help" | "-h" => {
            let _ = writeln!(out, "{USAGE}");
            0
        }
        other => usage_error(out, &format!("unknown command `{other}`")),
    }
}

fn usage_error(out: &mut dyn Write, why: &str) -> Status {
    if !why.is_empty() {
        eprintln!("xlayout: {why}");
    }
    let _ = out.flush();
    eprintln!("{USAGE}");
    2
}

/// A message on one line, as the scripting commands print it.
fn one_line(e: &Error) -> String {
    e.message().replace('\n', " ")
}

/// The inputs of a scripting command: its arguments, or the non-empty lines of stdin.
fn inputs(args: &[String], stdin: &mut dyn BufRead) -> Vec<String> {
    if !args.is_empty() {
        return args.to_vec();
    }
    stdin
        .lines()
        .map_while(Result::ok)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect()
}

fn per_input(
    args: &[String],
    stdin: &mut dyn BufRead,
    out: &mut dyn Write,
    answer: impl Fn(&str) -> Result<String, String>,
) -> Status {
    let mut status = 0;
    for text in inputs(args, stdin) {
        let line = match answer(&text) {
            Ok(a) => format!("ok {a}"),
            Err(e) => {
                status = 1;
                format!("err {e}")
            }
        };
        if writeln!(out, "{line}").is_err() {
            return 1;
        }
    }
    status
}

fn bytes(text: &str) -> Result<String, Error> {
    let shape: Shape = text.parse()?;
    shape_array(&shape)?.byte_size().map(|b| b.to_string())
}

/// The array of an array shape, or the error saying it is none.
fn shape_array(shape: &Shape) -> Result<&xlayout::ArrayShape, Error> {
    shape.as_array().ok_or_else(|| {
        Error::new(
            xlayout::ErrorKind::NotStaticArray,
            format!("`{shape}` is not an array shape: only arrays have a byte size"),
        )
    })
}

/// The error with the text it is about and a caret line under the offending bytes.
pub fn render_error(text: &str, e: &Error) -> String {
    let mut s = format!("error: {}\n", e.message());
    if let Some(span) = e.span() {
        let start = text[..span.start.min(text.len())].chars().count();
        let width = text[span.start.min(text.len())..span.end.min(text.len())].chars().count();
        s += &format!("  {text}\n  {}{}\n", " ".repeat(start), "^".repeat(width.max(1)));
    }
    s
}

fn explain(text: &str, out: &mut dyn Write) -> Status {
    match text.parse::<Shape>() {
        Ok(shape) => match explain::explain(&shape) {
            Ok(report) => {
                let _ = write!(out, "{report}");
                0
            }
            Err(e) => {
                let _ = write!(out, "{}", render_error(text, &e));
                1
            }
        },
        Err(e) => {
            let _ = write!(out, "{}", render_error(text, &e));
            1
        }
    }
}

mod explain;
