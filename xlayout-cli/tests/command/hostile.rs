//! Hostile input through the command, each run in a shell that limits the process to 64 MiB
//! of address space (`ulimit -v`): an abort, a stack overflow or a runaway allocation fails
//! the test. Skipped, with the reason printed, where there is no `sh`.

use std::io::Write;
use std::process::{Command, Stdio};

/// The budget of the hostile-input issue.
const LIMIT_KIB: u32 = 64 * 1024;

use crate::support::Run;

/// `xlayout ARGS < stdin` under the memory limit; `None` when no shell can impose it.
fn limited(args: &[&str], stdin: &[u8]) -> Option<Run> {
    let exe = env!("CARGO_BIN_EXE_xlayout");
    let script = format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\"");
    let spawned = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else {
        crate::support::missing_tool("no `sh` to run the command under a memory limit");
        return None;
    };
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin); // the command may stop reading early
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Some(Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

#[test]
fn deep_nesting_is_an_answer_not_an_abort() {
    let Some(run) = limited(&["canon"], "(".repeat(100_000).as_bytes()) else { return };
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stdout.starts_with("err tuples are nested more than 64 deep"), "{}", run.stdout);
    let balanced = format!("{}f32[]{}\nf32[2]\n", "(".repeat(10_000), ")".repeat(10_000));
    let Some(run) = limited(&["canon"], balanced.as_bytes()) else { return };
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with("err tuples are nested more than 64 deep"));
    assert_eq!(lines[1], "ok f32[2]{0}");
}

#[test]
fn explain_of_many_combining_levels_is_an_error_and_of_sixteen_is_short() {
    let shape = format!("f32[4,4]{{1,0:T{}}}", "(*,2)".repeat(26));
    let Some(run) = limited(&["explain", &shape], b"") else { return };
    assert_eq!(run.status, 1);
    assert!(run.stderr.starts_with("error: more than 16 tile levels"), "{}", run.stderr);
    let shape = format!("f32[4,4]{{1,0:T{}}}", "(*,2)".repeat(16));
    let Some(run) = limited(&["explain", &shape], b"") else { return };
    assert_eq!(run.status, 0, "{}", run.stderr);
    let space = run.stdout.lines().find(|l| l.starts_with("index space")).unwrap();
    assert!(space.len() < 4000, "{space}");
}

#[test]
fn explain_says_when_a_tile_has_more_elements_than_fit() {
    let Some(run) = limited(&["explain", "f32[0,2]{1,0:T(4294967296,4294967297)}"], b"") else {
        return;
    };
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("more elements per tile than 2^64 (the product overflows)"),
        "{}",
        run.stdout
    );
}

#[test]
fn map_draws_no_tile_line_inside_a_tile_that_an_inner_tile_pads() {
    // T(3)(2): each 3-element tile takes 4 positions (two inner tiles of 2); offsets 4, 5, 6
    // are one tile, so the only line is between 2 and 4.
    let Some(run) = limited(&["map", "f32[6]{0:T(3)(2)}"], b"") else { return };
    assert_eq!(
        run.stdout,
        "0 1 2 | 4 5 6\npadding: 2 of 8 grid positions, in memory order: 3, 7\n"
    );
}
