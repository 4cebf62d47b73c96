//! The `xlayout` command: explains XLA shapes, layouts and the memory of HLO modules to a
//! person, and answers scripts one line per input.
//!
//! This crate is the command only; the semantics live in the `xlayout` library (and its
//! `layout-runtime`), so a library user never builds clap or serde_json. `args.rs` says what
//! the command line means, `run` runs it, one function per mode, and `io.rs` is where bytes
//! come from and go; the report commands read their modules in one loop (`load.rs`) and
//! write through one emitter (`output.rs`). The scripting commands answer each input on its
//! own line, `ok ...` or `err ...`; the person commands write a report. Exit status: 0 when every
//! input was ok, 1 when any was not, 2 for a usage error or an input or output that failed
//! (but 0 for a closed output pipe).
//!
//! The command is also a library, so that other front ends (the Python package's `xlayout`
//! script) run exactly this code:
//!
//! ```
//! // `xlayout canon f32[3,5]` prints `ok f32[3,5]{1,0}` and exits 0.
//! assert_eq!(xlayout_cli::main_with_args(["xlayout", "canon", "f32[3,5]"]), 0);
//! assert_eq!(xlayout_cli::main_with_args(["xlayout", "bytes", "f32[3,5]{1,0:T(0,2)}"]), 1);
//! ```
#![warn(missing_docs)]

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::Parser;
use xlayout::{draw, ArrayShape, Error, Plan, Shape};

mod args;
mod bitcast;
mod dump;
mod hlo;
mod io;
mod load;
mod map;
mod oom;
mod output;
mod peak;
mod relayouts;

use args::{Cli, Command};
use io::{shape_text, Failure, LineTooLong, Out, Stdin};

/// Runs the command as `xlayout` with these arguments (the first is the program's name, as
/// in [`std::env::args_os`]), on the process's standard input, output and error; returns
/// the exit status.
///
/// ```
/// assert_eq!(xlayout_cli::main_with_args(["xlayout", "--version"]), 0);
/// assert_eq!(xlayout_cli::main_with_args(["xlayout", "no-such-command"]), 2);
/// ```
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    let mut stdin = stdin.lock();
    // Standard output is line-buffered: a script that writes an input and waits for its
    // answer gets it at once.
    let mut stdout = std::io::stdout().lock();
    let mut out = Out::new(&mut stdout);
    let result = Cli::try_parse_from(args)
        .map_err(Failure::Usage)
        .and_then(|args| {
            let mut input = Stdin::new(&mut stdin);
            if let (true, Some(command)) = (terminal, &args.command) {
                let (name, what) = command.reads();
                input = input.announcing(name, what);
            }
            run(args, &mut input, &mut out)
        })
        .and_then(|status| out.flush().map(|()| status));
    io::finish(result, &mut stdout, &mut std::io::stderr().lock())
}

/// Exit status of a run that reached its end: 0 when every input was ok, 1 otherwise.
type Status = u8;

/// Runs the parsed command line; every answer goes to `out`.
fn run(cli: Cli, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
    match cli.command {
        None => demo(out),
        Some(Command::Canon(a)) => a.canon(stdin, out),
        Some(Command::Bytes(a)) => a.bytes(stdin, out),
        Some(Command::Offset(a)) => a.run(stdin, out),
        Some(Command::Index(a)) => a.run(stdin, out),
        Some(Command::Explain(a)) => a.run(stdin, out),
        Some(Command::Map(a)) => a.run(stdin, out),
        Some(Command::Hlo(a)) => a.run(stdin, out),
        Some(Command::Peak(a)) => a.run(stdin, out),
        Some(Command::Oom(a)) => a.run(stdin, out),
        Some(Command::Bitcast(a)) => a.run(stdin, out),
        Some(Command::Relayouts(a)) => a.run(stdin, out),
    }
}

impl args::Inputs {
    fn canon(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        per_input(&self.shapes, stdin, out, |text| {
            Ok(nonblank(text)?.parse::<Shape>()?.to_string())
        })
    }

    fn bytes(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        per_input(&self.shapes, stdin, out, |text| {
            Ok(nonblank(text)?.parse::<ArrayShape>()?.byte_size()?.to_string())
        })
    }
}

impl args::Offsets {
    fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let plan = plan_of_argument(shape_text(&self.shape, stdin)?)?;
        per_input(&self.indices, stdin, out, |text| {
            // The empty string is a scalar's index; for any other shape it is no index.
            if !plan.dims().is_empty() {
                nonblank(text)?;
            }
            Ok(plan.offset(&parse_index(text)?)?.to_string())
        })
    }
}

impl args::Indices {
    fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let plan = plan_of_argument(shape_text(&self.shape, stdin)?)?;
        per_input(&self.offsets, stdin, out, |text| index_at(&plan, nonblank(text)?))
    }
}

impl args::Explain {
    fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        out.text(&explain_of(shape_text(&self.shape, stdin)?)?)?;
        Ok(0)
    }
}

impl args::Map {
    fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let text = shape_text(&self.shape, stdin)?;
        let options = draw::MapOptions {
            at: self.at.as_ref().map(|at| at.0.clone()),
            origin: self.origin.map_or((0, 0), |p| (p.0, p.1)),
            window: self.window.map(|p| (p.0, p.1)),
            tiles: self.tiles,
            memory_row: None,
        };
        let Some(file) = &self.svg else {
            out.text(&map_of(text, &options)?)?;
            return Ok(0);
        };
        let svg = text.parse::<ArrayShape>().and_then(|shape| draw::map_svg(&shape, &options));
        io::write_file(file, &svg.map_err(|error| Failure::shape(text, error))?, out)?;
        Ok(0)
    }
}

/// What `xlayout` with no arguments (`cargo run --release`) shows.
fn demo(out: &mut Out<'_>) -> Result<Status, Failure> {
    let mut text = String::from(
        "xlayout: XLA's shapes and tiled layouts, explained.\n\
         Offsets below are element offsets in memory; `xlayout help` lists the commands.\n",
    );
    for shape in ["f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}"] {
        text += &format!("\n== xlayout map {shape}\n");
        text += &map_of(shape.to_owned(), &draw::MapOptions::default())?;
    }
    let shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";
    text += &format!("\n== xlayout explain {shape}\n");
    text += &explain_of(shape.to_owned())?;
    out.text(&text)?;
    Ok(0)
}

/// `explain`'s report on the shape `text`.
fn explain_of(text: String) -> Result<String, Failure> {
    let report = text.parse::<Shape>().and_then(|s| xlayout::explain::explain(&s));
    report.map_err(|error| Failure::shape(text, error))
}

/// `map`'s text picture of the array shape `text`: the slice and window `options` pick.
fn map_of(text: String, options: &draw::MapOptions) -> Result<String, Failure> {
    let picture = plan_of(&text).and_then(|plan| map::map(&plan, options));
    picture.map_err(|error| Failure::shape(text, error))
}

/// Why an input of a scripting command got no answer: the `err` line's message.
#[derive(Debug)]
pub(crate) struct Reject(pub(crate) String);

impl From<Error> for Reject {
    fn from(e: Error) -> Reject {
        Reject(e.message().to_owned())
    }
}

/// The input itself, or [`Reject`] for an empty or all-blank one.
fn nonblank(text: &str) -> Result<&str, Reject> {
    if text.trim().is_empty() {
        Err(Reject(String::from("empty input")))
    } else {
        Ok(text)
    }
}

/// An `err` line says at most this many characters: a message that quotes its input is
/// cut (the input itself can be a megabyte long).
const MAX_ERR: usize = 400;

/// Answers each input in order, one `ok`/`err` line each: the arguments, where `-` (the
/// default) stands for the lines of standard input, answered as they arrive (a line longer
/// than [`io::MAX_LINE`] is answered `err line too long`).
fn per_input(
    inputs: &[String],
    stdin: &mut Stdin<'_>,
    out: &mut Out<'_>,
    answer: impl Fn(&str) -> Result<String, Reject>,
) -> Result<Status, Failure> {
    let mut status = 0;
    let mut respond = |out: &mut Out<'_>, answer: Result<String, Reject>| match answer {
        Ok(a) => out.line(format_args!("ok {a}")),
        Err(Reject(why)) => {
            status = 1;
            // One line per input, whatever the message holds, and a short one.
            let why = why.replace('\n', " ");
            match why.char_indices().nth(MAX_ERR) {
                Some((cut, _)) => out.line(format_args!("err {}...", &why[..cut])),
                None => out.line(format_args!("err {why}")),
            }
        }
    };
    for input in inputs {
        if input == "-" {
            while let Some(line) = stdin.next_line()? {
                match line {
                    Ok(line) => respond(out, answer(line.trim()))?,
                    Err(LineTooLong) => respond(out, Err(Reject(LineTooLong::message())))?,
                }
            }
        } else {
            respond(out, answer(input))?;
        }
    }
    Ok(status)
}

/// `text` quoted in a message as the parser quotes a token.
fn quoted(text: &str) -> String {
    xlayout::limits::quote(text, xlayout::limits::QUOTED_TOKEN)
}

fn plan_of(text: &str) -> Result<Plan, Error> {
    text.parse::<ArrayShape>()?.plan()
}

/// The plan of a SHAPE argument, or the failure that shows the argument with a caret.
fn plan_of_argument(text: String) -> Result<Plan, Failure> {
    plan_of(&text).map_err(|error| Failure::shape(text, error))
}

/// `2,3` (spaces allowed), or the empty string for a scalar.
fn parse_index(text: &str) -> Result<Vec<usize>, Reject> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| {
            part.trim().parse::<usize>().map_err(|_| {
                Reject(format!(
                    "{} is not an index entry: write non-negative integers like `2,3`",
                    quoted(part.trim())
                ))
            })
        })
        .collect()
}

fn index_at(plan: &Plan, text: &str) -> Result<String, Reject> {
    let offset: usize = text.parse().map_err(|_| {
        Reject(format!("{} is not an offset: write a non-negative integer", quoted(text)))
    })?;
    if offset >= plan.grid_len() {
        let why = format!("offset {offset} is beyond the grid of {} elements", plan.grid_len());
        return Err(Reject(why));
    }
    Ok(match plan.index_of(offset) {
        Some(index) => index.iter().map(ToString::to_string).collect::<Vec<_>>().join(","),
        None => String::from("padding"),
    })
}
