//! Hostile input through the command, each run in a shell that limits the process to 64 MiB
//! of address space (`ulimit -v`): an abort, a stack overflow or a runaway allocation fails
//! the test. Skipped, with the reason printed, where there is no `sh`.

use std::io::Write;
use std::process::{Command, Stdio};

/// The budget of the hostile-input issue.
const LIMIT_KIB: u32 = 64 * 1024;

use crate::support::Run;

use xlayout_test_support::hostile::{self as hostile_inputs, Class};

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

#[test]
fn an_endless_line_is_answered_under_the_memory_limit() {
    // 80 MB without a line end: more than the process may map, were it read whole.
    let line = vec![b'f'; 80 << 20];
    let too_long = "err line too long: more than 1048576 bytes, not read\n";
    for args in [&["canon"][..], &["bytes"], &["offset", "f32[4]{0}", "-"], &["index", "f32[4]{0}"]]
    {
        let Some(run) = limited(args, &line) else { return };
        assert_eq!((run.status, run.stdout.as_str()), (1, too_long), "{args:?}: {}", run.stderr);
    }
    let Some(run) = limited(&["explain", "-"], &line) else { return };
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(run.stderr.len() < 200, "{}", run.stderr);
    // A shape of a megabyte shown under its error: a window of it, not all of it.
    let mut shape = vec![b'f'; 1 << 20];
    shape.push(b'\n');
    let Some(run) = limited(&["explain", "-"], &shape) else { return };
    assert_eq!(run.status, 1);
    assert!(run.stderr.len() < 500, "{}", run.stderr.len());
}

/// Issue 31, item 7: `oom --hlo` on a 0.7 MB report whose every entry names one instruction
/// of a 0.6 MB dump, an instruction whose shape, op_name and source file are a third of the
/// dump each (880 MB on standard error, 2.5 GB of JSON and 1.6 GB of RSS before). In every
/// format, under the memory limit: the output a few times the input, the dump's op_name
/// written once, and on standard error 100 notes of each kind and a count of the rest.
#[test]
fn oom_joined_to_a_dump_writes_in_proportion_to_both() {
    let dir = crate::support::scratch!("oom-join");
    let dump = dir.join("dump.txt");
    let dump_text = hostile_inputs::generate(Class::JoinDump, 600_000);
    std::fs::write(&dump, &dump_text).unwrap();
    let report = hostile_inputs::generate(Class::JoinReport, 700_000);
    let input = dump_text.len() + report.len();
    let d = dump.to_str().unwrap();
    for format in ["json", "tsv", "csv", "table"] {
        let Some(run) = limited(&["oom", "--format", format, "--hlo", d, "-"], &report) else {
            return;
        };
        assert_eq!(run.status, 0, "{format}: {}", &run.stderr[..run.stderr.len().min(2000)]);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 2 * 101, "{format}");
        assert!(lines.iter().all(|l| l.len() < 600), "{format}: {}", lines[0]);
        assert!(lines[0].starts_with("standard input:4: entry 1: the dump's f.1 is (f32[1]{0}, "));
        assert!(
            lines[0].ends_with(" bytes of text) (no size), the report's f32[] (4 bytes)"),
            "{}",
            lines[0]
        );
        assert!(run.stdout.len() < 10 * input, "{format}: {} bytes for {input}", run.stdout.len());
        // The op_name is written once (JSON), or quoted once at most (the table), or not
        // at all (TSV, CSV: the instruction's line and size only).
        let op_names = run.stdout.matches("jit(f)/").count();
        let expected = match format {
            "json" => 1,
            _ => 0,
        };
        assert_eq!(op_names, expected, "{format}");
    }
}

/// A module of `n` copies in one computation whose name is `len` characters long, each
/// from one source file of `len` characters that the module's `FileNames` table names once.
fn shared_names(n: usize, len: usize) -> Vec<u8> {
    let (computation, file) = ("c".repeat(len), "f".repeat(len));
    let mut text = format!(
        "HloModule m, is_scheduled=true\n\nFileNames\n1 \"{file}\"\n\nFileLocations\n\
         1 {{file_name_id=1 function_name_id=1 line=7 end_line=7 column=1 end_column=2}}\n\n\
         StackFrames\n1 {{file_location_id=1 parent_frame_id=1}}\n\n\
         ENTRY %{computation} (p: f32[1]) -> f32[1] {{\n  %p = f32[1]{{0}} parameter(0)\n"
    );
    for k in 0..n {
        text += &format!("  %a{k} = f32[1]{{0}} copy(%p), metadata={{stack_frame_id=1}}\n");
    }
    text += &format!("  ROOT %r = f32[1]{{0}} copy(%a{})\n}}\n", n - 1);
    text.into_bytes()
}

/// An out-of-memory report of `n` entries under one section whose memory space is named
/// with `len` characters.
fn shared_space(n: usize, len: usize) -> Vec<u8> {
    let mut text = format!(
        "Ran out of memory in memory space hbm. Used 1.00G of 1.00G hbm.\n\
         Largest program allocations in {}:\n",
        "s".repeat(len)
    );
    for k in 1..=n {
        text += &format!("  {k}. Size: 4B\n     Shape: f32[1]{{0}}\n");
    }
    text.into_bytes()
}

/// Issue 31, item 5: a name many rows share (a computation's, a `FileNames` entry, an `oom`
/// section's memory space) is written once, and cut where a person reads it, so that the
/// output grows with the input, not with the number of rows times the name's length (135 KB
/// of such a module gave 100 MB of TSV). At 4 times the rows and 4 times the names' length,
/// every format of every report command writes at most 5 times as much (16 times before),
/// and a few times its input.
#[test]
fn a_shared_name_is_written_once() {
    let module = [shared_names(100, 8 << 10), shared_names(400, 32 << 10)];
    let report = [shared_space(100, 8 << 10), shared_space(400, 32 << 10)];
    let mut runs: Vec<(Vec<&str>, &[Vec<u8>; 2])> = Vec::new();
    for format in ["tsv", "csv", "json", "table"] {
        for command in ["hlo", "peak", "relayouts"] {
            runs.push((vec![command, "--format", format, "-"], &module));
        }
        runs.push((vec!["oom", "--format", format, "-"], &report));
    }
    runs.push((vec!["hlo", "--html", "-", "-"], &module));
    runs.push((vec!["peak", "--top", "1000", "--html", "-", "-"], &module));
    for (args, inputs) in runs {
        // A page's rows carry their markup (each cell classed, so that a notebook's
        // stylesheet aligns it), and `peak --top 1000` lists every value twice (the report's
        // table and the live values'): 10.5 times the small module's text, 8.8 times the
        // large one's, names cut. Every other format stays under 10 times.
        let times = if args.contains(&"--html") { 12 } else { 10 };
        let [small, large] = inputs.clone().map(|input| {
            let run = crate::support::xlayout(&args, &input);
            assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
            assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
            assert!(
                run.stdout.len() < times * input.len(),
                "{args:?}: {} for {}",
                run.stdout.len(),
                input.len()
            );
            run.stdout.len()
        });
        assert!(large <= 5 * small, "{args:?}: {small} bytes, then {large}");
    }
}
