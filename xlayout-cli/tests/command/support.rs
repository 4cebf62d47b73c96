//! Running the `xlayout` command as a user does, for the command tests: its standard streams
//! pipes, its output and exit status collected, from the repository root (so file names are
//! as the tests and the README write them: `tests/data/...`).

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// What a run of the command left.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The repository root: the workspace's, where `tests/data` and the README are.
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The command running in the repository root, its standard streams pipes.
pub fn spawn(args: &[&str]) -> Child {
    spawn_in(root(), args)
}

/// Runs `xlayout ARGS` in the repository root with `stdin` as its standard input.
pub fn xlayout(args: &[&str], stdin: &[u8]) -> Run {
    run_in(root(), args, stdin)
}

/// A fresh, empty folder for files a test writes, named for the test.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// What a test whose tool (a shell) is missing does: on a developer's machine it is skipped,
/// saying why on standard error; under CI (`CI=true`, which `.ci/run` sets) it fails, so a
/// check cannot pass by not running.
pub fn missing_tool(why: &str) {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!ci, "{why}: under CI every tool a test needs is installed");
    eprintln!("skipped: {why}");
}
