//! The `xlayout` command: explains XLA shapes and layouts to a person, and answers scripts
//! one line per input.

mod cli;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Result<Vec<String>, _> =
        std::env::args_os().skip(1).map(|a| a.into_string()).collect();
    let Ok(args) = args else {
        eprintln!("xlayout: arguments must be UTF-8 text");
        return ExitCode::from(2);
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    let status = cli::run(&args, &mut stdin.lock(), &mut out, &mut err);
    // A closed pipe (`xlayout map ... | head`) is not worth a panic message.
    let _ = out.flush();
    ExitCode::from(status)
}
