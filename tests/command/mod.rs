//! Running the `xlayout` command as a user does, for the command tests: its standard streams
//! pipes, its output and exit status collected.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// What a run of the command left.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The command running in `dir`, its standard streams pipes.
pub fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_xlayout"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs the command in `dir` with `stdin` as its standard input, to its end.
pub fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = spawn_in(dir, args);
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        status: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}
