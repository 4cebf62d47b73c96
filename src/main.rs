//! The `xlayout` command: explains XLA shapes and layouts to a person, and answers scripts
//! one line per input.

mod cli;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let status = cli::run(&args, &mut stdin.lock(), &mut out);
    // A closed pipe (`xlayout map ... | head`) is not worth a panic message.
    let _ = out.flush();
    ExitCode::from(status)
}
