//! Running the `xlayout` command as a user does, for the command tests: its standard streams
//! pipes, its output and exit status collected, from the repository root (so file names are
//! as the tests and the README write them: `tests/data/...`). What the command's tests share
//! with the library's (the repository root, scratch folders, a missing tool) is
//! `xlayout-test-support`'s.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// What a run of the command left.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

pub use xlayout_test_support::{missing_tool, root, scratch};

/// The command running in the repository root, its standard streams pipes.
pub fn spawn(args: &[&str]) -> Child {
    spawn_in(root(), args)
}

/// Runs `xlayout ARGS` in the repository root with `stdin` as its standard input.
pub fn xlayout(args: &[&str], stdin: &[u8]) -> Run {
    run_in(root(), args, stdin)
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
