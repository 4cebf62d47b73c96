//! The `xlayout` command (see the crate's library docs and the README for what it does).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(xlayout_cli::main_with_args(std::env::args_os()))
}
