//! Standard input that is a terminal, as when a person runs `xlayout hlo` and forgets the
//! file: the command says on standard error that it reads standard input and how to end it,
//! instead of waiting in silence; input from a pipe or a file is read without a word. The
//! terminal is a pseudo-terminal, ended with Ctrl-D as a person ends it.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};
use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};

use crate::support;

/// Runs `xlayout ARGS` in the repository root with a pseudo-terminal as its standard input,
/// types Ctrl-D at it, and returns the exit status and standard error.
fn at_a_terminal(args: &[&str]) -> (i32, String) {
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    // NOCTTY: the terminal must not become the test process's own.
    let terminal =
        rustix::fs::open(name.as_c_str(), OFlags::RDWR | OFlags::NOCTTY, Mode::empty()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_xlayout"))
        .current_dir(support::root())
        .args(args)
        .stdin(Stdio::from(terminal))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut master = std::fs::File::from(master);
    // Ctrl-D (the terminal's EOF character) at the start of a line ends the input.
    master.write_all(b"\x04").unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("xlayout {args:?} still waits for input 60 s after Ctrl-D");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (status.code().unwrap(), stderr)
}

#[test]
fn a_terminal_is_told_that_standard_input_is_read() {
    let cases: [(&[&str], i32, &str); 5] = [
        (&["canon"], 0, "xlayout canon: reading its inputs, one a line, from standard input"),
        (&["hlo"], 0, "xlayout hlo: reading HLO module text from standard input"),
        (&["oom"], 1, "xlayout oom: reading an out-of-memory report from standard input"),
        (&["oom", "--hlo", "-", "x.txt"], 2, "xlayout oom: reading the --hlo dump from standard"),
        (&["explain", "-"], 1, "xlayout explain: reading the shape from standard input"),
    ];
    for (args, status, notice) in cases {
        let (got, stderr) = at_a_terminal(args);
        assert_eq!(got, status, "{args:?}: {stderr}");
        let first = stderr.lines().next().unwrap_or("");
        assert!(first.starts_with(notice), "{args:?}: {stderr}");
        assert!(first.ends_with(" (Ctrl-D to end)"), "{args:?}: {stderr}");
    }
    // Nothing is said by a command that does not read standard input, nor for a pipe.
    assert_eq!(at_a_terminal(&["canon", "f32[2]"]), (0, String::new()));
    for args in [&["canon"][..], &["hlo"], &["oom"]] {
        let run = support::xlayout(args, b"f32[2]\n");
        assert!(!run.stderr.contains("standard input ("), "{args:?}: {}", run.stderr);
    }
}
