//! Command dispatch. The scripting commands take their inputs from arguments or, when there
//! are none, one per non-empty line of standard input, and print one `ok ...` or `err ...`
//! line per input. Exit status: 0 when every input was ok, 1 when any was not, 2 for a usage
//! error.

use std::io::{BufRead, Write};

use xlayout::{ArrayShape, Error, ErrorKind, Plan, Shape};

mod explain;
mod hlo;
mod map;

const USAGE: &str = "\
usage: xlayout                          show the demo
       xlayout canon [SHAPE]...         XLA's printed form of each shape
       xlayout bytes [SHAPE]...         XLA's byte size (ShapeUtil::ArraySize)
       xlayout offset SHAPE [INDEX]...  element offset of each logical index (`2,3`; `` for a scalar)
       xlayout index SHAPE [OFFSET]...  logical index stored at each offset, or `padding`
       xlayout explain SHAPE            sizes, order, tiles and padding, for a person
       xlayout map SHAPE [--at I,J,..]  the offset of every element of a 2-D slice, tiles
                                        separated, and the padding positions; --at picks the
                                        leading indices of a shape of rank > 2 (default 0s)
       xlayout hlo [FILE]               every array shape of an HLO dump (stdin without FILE):
                                        sizes, padding, memory spaces, invalid shapes
       xlayout help                     this text

With no SHAPE (canon, bytes) or no INDEX/OFFSET (offset, index), the scripting commands read
one input per non-empty line of standard input and print `ok <answer>` or `err <message>`
per input. Exit status: 0 when all were ok, 1 when any was an error, 2 for a usage error.";

/// Exit status of a run.
pub type Status = u8;

/// Runs the command line `args` (without the program name); `out` gets the answers, `err`
/// the diagnostics.
pub fn run(
    args: &[String],
    stdin: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Status {
    let Some((command, rest)) = args.split_first() else {
        return demo(out);
    };
    match command.as_str() {
        "canon" => per_input(rest, stdin, out, |text| Ok(text.parse::<Shape>()?.to_string())),
        "bytes" => per_input(rest, stdin, out, |text| {
            Ok(text.parse::<ArrayShape>()?.byte_size()?.to_string())
        }),
        "offset" | "index" => {
            let Some((shape, inputs)) = rest.split_first() else {
                return usage_error(err, &format!("{command} needs a SHAPE"));
            };
            let plan = match plan_of(shape) {
                Ok(p) => p,
                Err(e) => return shape_error(err, shape, &e),
            };
            if command == "offset" {
                per_input(inputs, stdin, out, |text| {
                    Ok(plan.offset(&parse_index(text)?)?.to_string())
                })
            } else {
                per_input(inputs, stdin, out, |text| index_at(&plan, text))
            }
        }
        "explain" => match rest {
            [shape] => match shape.parse::<Shape>().and_then(|s| explain::explain(&s)) {
                Ok(report) => write_all(out, &report),
                Err(e) => shape_error(err, shape, &e),
            },
            _ => usage_error(err, "explain takes exactly one SHAPE"),
        },
        "map" => {
            let (shape, at) = match rest {
                [shape] => (shape, None),
                [shape, flag, at] | [flag, at, shape] if flag == "--at" => {
                    (shape, Some(at.as_str()))
                }
                _ => return usage_error(err, "map takes one SHAPE and optionally --at I,J,..."),
            };
            let leading = match at.map(parse_index).transpose() {
                Ok(l) => l,
                Err(e) => return usage_error(err, &format!("--at: {}", e.message())),
            };
            match plan_of(shape).and_then(|plan| map::map(&plan, leading.as_deref())) {
                Ok(picture) => write_all(out, &picture),
                Err(e) => shape_error(err, shape, &e),
            }
        }
        "hlo" => {
            let (name, text) = match rest {
                [] => {
                    let mut text = String::new();
                    if let Err(e) = stdin.read_to_string(&mut text) {
                        let _ = writeln!(err, "xlayout: cannot read standard input: {e}");
                        return 1;
                    }
                    (String::from("standard input"), text)
                }
                [file] => match std::fs::read_to_string(file) {
                    Ok(text) => (file.clone(), text),
                    Err(e) => {
                        let _ = writeln!(err, "xlayout: cannot read {file}: {e}");
                        return 1;
                    }
                },
                _ => return usage_error(err, "hlo takes at most one FILE"),
            };
            let (report, all_valid) = hlo::report(&name, &text);
            write_all(out, &report);
            if all_valid {
                0
            } else {
                1
            }
        }
        "help" | "--help" | "-h" => write_all(out, &format!("{USAGE}\n")),
        other => usage_error(err, &format!("unknown command `{other}`")),
    }
}

/// What `xlayout` with no arguments (`cargo run --release`) shows.
fn demo(out: &mut dyn Write) -> Status {
    let mut text = String::from(
        "xlayout: XLA's shapes and tiled layouts, explained.\n\
         Offsets below are element offsets in memory; `xlayout help` lists the commands.\n",
    );
    for shape in ["f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}"] {
        let plan = plan_of(shape).expect("demo shapes are valid");
        text += &format!("\n== xlayout map {shape}\n");
        text += &map::map(&plan, None).expect("demo shapes are 2-D");
    }
    let shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";
    text += &format!("\n== xlayout explain {shape}\n");
    text +=
        &explain::explain(&shape.parse().expect("demo shape is valid")).expect("it has a report");
    write_all(out, &text)
}

fn write_all(out: &mut dyn Write, text: &str) -> Status {
    // A closed pipe (`xlayout map ... | head`) ends the output; it is not worth a panic.
    let _ = out.write_all(text.as_bytes());
    0
}

fn usage_error(err: &mut dyn Write, why: &str) -> Status {
    let _ = writeln!(err, "xlayout: {why}\n{USAGE}");
    2
}

/// A bad SHAPE argument: the message, the text, and a caret line under the offending bytes.
fn shape_error(err: &mut dyn Write, text: &str, e: &Error) -> Status {
    let _ = write!(err, "{}", render_error(text, e));
    1
}

/// The error with the text it is about and a caret line under the offending bytes.
pub fn render_error(text: &str, e: &Error) -> String {
    let mut s = format!("error: {}\n", e.message());
    if let Some(span) = e.span() {
        // Count characters, not bytes, so the caret stands under the right column.
        let start = text.get(..span.start).map_or(0, |t| t.chars().count());
        let width = text.get(span.clone()).map_or(1, |t| t.chars().count()).max(1);
        s += &format!("  {text}\n  {}{}\n", " ".repeat(start), "^".repeat(width));
    }
    s
}

/// A message on one line, as the scripting commands print it.
fn one_line(e: &Error) -> String {
    e.message().replace('\n', " ")
}

/// Answers each input (the arguments, or the non-empty lines of stdin as they arrive).
fn per_input(
    args: &[String],
    stdin: &mut dyn BufRead,
    out: &mut dyn Write,
    answer: impl Fn(&str) -> Result<String, Error>,
) -> Status {
    let mut status = 0;
    let mut respond = |input: Result<&str, Error>| {
        let line = match input.and_then(&answer) {
            Ok(a) => format!("ok {a}"),
            Err(e) => {
                status = 1;
                format!("err {}", one_line(&e))
            }
        };
        writeln!(out, "{line}").is_ok()
    };
    if !args.is_empty() {
        for a in args {
            if !respond(Ok(a)) {
                return 1;
            }
        }
        return status;
    }
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                respond(Err(Error::new(
                    ErrorKind::Syntax,
                    format!("cannot read standard input: {e}"),
                )));
                break;
            }
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(l) if l.trim().is_empty() => continue,
            Ok(l) => Ok(l.trim()),
            Err(_) => Err(Error::new(ErrorKind::Syntax, "the input line is not UTF-8")),
        };
        if !respond(line) {
            return 1;
        }
    }
    status
}

fn plan_of(text: &str) -> Result<Plan, Error> {
    let shape: Shape = text.parse()?;
    shape.try_array()?.plan()
}

/// `2,3` (spaces allowed), or the empty string for a scalar.
fn parse_index(text: &str) -> Result<Vec<usize>, Error> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| {
            part.trim().parse::<usize>().map_err(|_| {
                Error::new(
                    ErrorKind::Syntax,
                    format!(
                        "`{}` is not an index entry: write non-negative integers like `2,3`",
                        part.trim()
                    ),
                )
            })
        })
        .collect()
}

fn index_at(plan: &Plan, text: &str) -> Result<String, Error> {
    let offset: usize = text.parse().map_err(|_| {
        Error::new(
            ErrorKind::Syntax,
            format!("`{text}` is not an offset: write a non-negative integer"),
        )
    })?;
    if offset >= plan.grid_len() {
        return Err(Error::new(
            ErrorKind::IndexOutOfBounds,
            format!("offset {offset} is beyond the grid of {} elements", plan.grid_len()),
        ));
    }
    Ok(match plan.index_of(offset) {
        Some(index) => index.iter().map(ToString::to_string).collect::<Vec<_>>().join(","),
        None => String::from("padding"),
    })
}
