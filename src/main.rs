//! The `xlayout` command: explains XLA shapes and layouts to a person, and answers scripts
//! one line per input.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    // Standard output is line-buffered: a script that writes an input and waits for its
    // answer gets it at once.
    let mut stdout = std::io::stdout().lock();
    let mut out = cli::io::Out::new(&mut stdout);
    let result = cli::args::Cli::try_parse()
        .map_err(cli::io::Failure::Usage)
        .and_then(|args| cli::run(args, &mut cli::io::Stdin::new(&mut stdin), &mut out))
        .and_then(|status| out.flush().map(|()| status));
    ExitCode::from(cli::io::finish(result, &mut stdout, &mut std::io::stderr().lock()))
}
