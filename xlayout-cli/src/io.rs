//! Where the command's bytes come from and go: standard input read line by line or whole,
//! files, and the one writer every answer goes through. Each failure is a [`Failure`] that
//! says which side failed, so `main` can tell a closed pipe from a full disk.

use std::fmt;
use std::io::{self, BufRead, Write};
use std::path::Path;

use xlayout::Error;

/// Why a run stopped before its end.
#[derive(Debug)]
pub enum Failure {
    /// Writing standard output failed (a closed pipe, a full disk, ...).
    Output(io::Error),
    /// An input could not be read: `name` says which (`standard input`, a file's path).
    Input { name: String, error: io::Error },
    /// An output file could not be written: `name` is its path.
    Write { name: String, error: io::Error },
    /// The command line is wrong, or asks for `--help` or `--version`: clap's message.
    Usage(clap::Error),
    /// A SHAPE argument is not a shape the command can use: shown with a caret under `text`.
    /// (Boxed: the error is large, and every `Result` of a run carries this type.)
    Shape { text: String, error: Box<Error> },
}

impl Failure {
    /// The failure of the SHAPE argument `text`.
    pub fn shape(text: String, error: Error) -> Failure {
        Failure::Shape { text, error: Box::new(error) }
    }
}

/// A usage error with clap's look (`error: ...`, exit status 2), for what clap cannot see
/// (two options that contradict each other through their values).
pub fn usage(message: String) -> Failure {
    Failure::Usage(clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, message + "\n"))
}

/// The name of standard input in messages.
const STDIN: &str = "standard input";

fn stdin_failure(error: io::Error) -> Failure {
    Failure::Input { name: String::from(STDIN), error }
}

/// Standard output: every write of a run goes through here, so a failed write is always a
/// [`Failure::Output`].
pub struct Out<'a>(&'a mut dyn Write);

impl<'a> Out<'a> {
    pub fn new(out: &'a mut dyn Write) -> Out<'a> {
        Out(out)
    }

    /// Writes `text` as it is.
    pub fn text(&mut self, text: &str) -> Result<(), Failure> {
        self.0.write_all(text.as_bytes()).map_err(Failure::Output)
    }

    /// Writes one line.
    pub fn line(&mut self, line: fmt::Arguments<'_>) -> Result<(), Failure> {
        writeln!(self.0, "{line}").map_err(Failure::Output)
    }

    /// Writes `value` as JSON, as it is serialized (a report of a large dump is not built
    /// in memory first).
    pub fn json<T: serde::Serialize>(&mut self, value: &T) -> Result<(), Failure> {
        serde_json::to_writer(&mut *self.0, value).map_err(|e| {
            // The report types always serialize; what can fail is the writing.
            Failure::Output(e.io_error_kind().map_or_else(|| io::Error::other(e), io::Error::from))
        })
    }

    /// Pushes out what is buffered; a closed pipe or full disk may only show here.
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.0.flush().map_err(Failure::Output)
    }
}

/// The longest line of standard input a line-based command reads: a longer one is
/// answered `err line too long` and skipped, never held whole (a script that sends an
/// endless line gets an answer, not an aborted process).
pub const MAX_LINE: usize = 1 << 20;

/// A line of standard input: its text, or [`LineTooLong`] for one of more than
/// [`MAX_LINE`] bytes (read to its end and dropped).
pub type Line = Result<String, LineTooLong>;

/// A line longer than [`MAX_LINE`] bytes.
#[derive(Debug)]
pub struct LineTooLong;

impl LineTooLong {
    /// What the `err` line says.
    pub fn message() -> String {
        format!("line too long: more than {MAX_LINE} bytes, not read")
    }
}

/// Standard input, read in lines (counted, for messages) by whichever argument asks first.
/// A line ends at `\n`, `\r\n` or a lone `\r`, as every reader of `xlayout` ends lines.
pub struct Stdin<'a> {
    input: &'a mut dyn BufRead,
    lines_read: usize,
    /// The last line ended with `\r`: a `\n` right after it belongs to that line end.
    after_cr: bool,
    /// What to say on standard error before the first read (see [`Stdin::announcing`]).
    notice: Option<String>,
}

/// The keys that end input typed at a terminal.
const END_OF_INPUT: &str = if cfg!(windows) { "Ctrl-Z, then Enter" } else { "Ctrl-D" };

impl<'a> Stdin<'a> {
    pub fn new(input: &'a mut dyn BufRead) -> Stdin<'a> {
        Stdin { input, lines_read: 0, after_cr: false, notice: None }
    }

    /// Says on standard error, before the first read, that `command` reads `what` from
    /// standard input and how to end it: for input that is a terminal, where a command
    /// waiting in silence looks hung (as `python -` or `gpg` say so). Nothing is said when
    /// the command never reads standard input.
    pub fn announcing(mut self, command: &str, what: &str) -> Stdin<'a> {
        self.notice = Some(format!(
            "xlayout {command}: reading {what} from standard input ({END_OF_INPUT} to end)"
        ));
        self
    }

    /// Writes the notice, once.
    fn announce(&mut self) {
        if let Some(notice) = self.notice.take() {
            // Nowhere to report a failure to say it; the read goes on.
            let _ = writeln!(io::stderr(), "{notice}");
        }
    }

    /// The next line, without its line end; `None` at the end. At most [`MAX_LINE`] bytes
    /// of a line are kept. A line that is not UTF-8 is a read failure, like an I/O error:
    /// the input is not text. A line is answered as soon as its line end arrives (a `\r`
    /// does not wait for a `\n` that may follow).
    pub fn next_line(&mut self) -> Result<Option<Line>, Failure> {
        self.announce();
        let mut buf = Vec::new();
        let (mut any, mut too_long) = (false, false);
        loop {
            let chunk = self.input.fill_buf().map_err(stdin_failure)?;
            if chunk.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                self.input.consume(1);
                continue;
            }
            any = true;
            let end = chunk.iter().position(|&b| b == b'\n' || b == b'\r');
            let piece = &chunk[..end.unwrap_or(chunk.len())];
            if !too_long && buf.len() + piece.len() > MAX_LINE {
                too_long = true;
                buf = Vec::new();
            }
            if !too_long {
                buf.extend_from_slice(piece);
            }
            let used = piece.len();
            if let Some(at) = end {
                self.after_cr = chunk[at] == b'\r';
                self.input.consume(used + 1);
                break;
            }
            self.input.consume(used);
        }
        self.lines_read += 1;
        if too_long {
            return Ok(Some(Err(LineTooLong)));
        }
        let line = String::from_utf8(buf).map_err(|_| {
            let why = format!("line {} is not UTF-8", self.lines_read);
            stdin_failure(io::Error::new(io::ErrorKind::InvalidData, why))
        })?;
        Ok(Some(Ok(line)))
    }

    /// The whole of what is left, as bytes: a reader that accepts any bytes (an HLO dump,
    /// which may hold a line that is not UTF-8) decides what to do with them.
    pub fn rest(&mut self) -> Result<Vec<u8>, Failure> {
        self.announce();
        let mut bytes = Vec::new();
        self.input.read_to_end(&mut bytes).map_err(stdin_failure)?;
        Ok(bytes)
    }
}

/// The text of a SHAPE argument: itself, or for `-` the first line of standard input (a
/// failure to read when it is longer than [`MAX_LINE`]).
pub fn shape_text(arg: &str, stdin: &mut Stdin<'_>) -> Result<String, Failure> {
    if arg != "-" {
        return Ok(String::from(arg));
    }
    match stdin.next_line()? {
        None => Ok(String::new()),
        Some(Ok(line)) => Ok(line.trim().to_owned()),
        Some(Err(LineTooLong)) => {
            let why = format!("line {}: {}", stdin.lines_read, LineTooLong::message());
            Err(stdin_failure(io::Error::new(io::ErrorKind::InvalidData, why)))
        }
    }
}

/// The name (for messages) and the bytes of a FILE argument; `-` is standard input.
pub fn read_file(path: &Path, stdin: &mut Stdin<'_>) -> Result<(String, Vec<u8>), Failure> {
    if path == Path::new("-") {
        return Ok((String::from(STDIN), stdin.rest()?));
    }
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => Ok((name, bytes)),
        Err(error) => Err(Failure::Input { name, error }),
    }
}

/// The files of a directory argument that `pick` keeps, or the failure to list them.
pub fn list_dir(
    path: &Path,
    pick: impl FnOnce(&Path) -> std::io::Result<Vec<std::path::PathBuf>>,
) -> Result<Vec<std::path::PathBuf>, Failure> {
    pick(path).map_err(|error| Failure::Input { name: path.display().to_string(), error })
}

/// Writes `text` to the FILE argument `path`; `-` is standard output.
pub fn write_file(path: &Path, text: &str, out: &mut Out<'_>) -> Result<(), Failure> {
    if path == Path::new("-") {
        return out.text(text);
    }
    std::fs::write(path, text)
        .map_err(|error| Failure::Write { name: path.display().to_string(), error })
}

/// What `main` does at the end of a run: diagnostics on `err`, and the exit status.
/// A closed output pipe is the reader saying it has seen enough: status 0, nothing said.
pub fn finish(result: Result<u8, Failure>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    // A failure to write a diagnostic has nowhere to be reported: the status still says it.
    match result {
        Ok(status) => status,
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(Failure::Output(e)) => {
            let _ = writeln!(err, "xlayout: cannot write the output: {e}");
            2
        }
        Err(Failure::Input { name, error }) => {
            let _ = writeln!(err, "xlayout: cannot read {name}: {error}");
            2
        }
        Err(Failure::Write { name, error }) => {
            let _ = writeln!(err, "xlayout: cannot write {name}: {error}");
            2
        }
        Err(Failure::Usage(e)) if !e.use_stderr() => {
            // `--help`, `--version`: asked-for output, so it goes through the one writer.
            let shown = e.render().to_string();
            let mut out = Out::new(out);
            let written = out.text(&shown).and_then(|()| out.flush());
            finish(written.map(|()| 0), &mut io::sink(), err)
        }
        Err(Failure::Usage(e)) => {
            let _ = write!(err, "{}", e.render());
            2
        }
        Err(Failure::Shape { text, error }) => {
            let _ = writeln!(err, "{}", error.render(&text));
            1
        }
    }
}
