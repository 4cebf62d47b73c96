//! The `xlayout` command as a user runs it: arguments, standard input, output lines, exit
//! status. Expected values are XLA's (the conformance data) or derived in the comments.

use std::io::{BufRead, BufReader, Write};
use std::process::Command;

use crate::support::{spawn, xlayout, Run};

fn lines(r: &Run) -> Vec<&str> {
    r.stdout.lines().collect()
}

#[test]
fn canon_from_arguments_and_stdin() {
    let r = xlayout(&["canon", "f32[3,5]", "f32[3,5]{1,0:L(1)E(0)S(0)M(0)}", "f32[]"], b"");
    assert_eq!(
        (r.status, lines(&r)),
        (0, vec!["ok f32[3,5]{1,0}", "ok f32[3,5]{1,0}", "ok f32[]"])
    );

    // Every input line gets its answer line, blank ones included, so answers line up.
    let stdin = b"f32[3,5]{1,0:T(08,128)}\n\n   \r\n(f32[2], s8[])\nf32[3,5]{1,1}";
    let r = xlayout(&["canon"], stdin);
    assert_eq!(r.status, 1);
    let l = lines(&r);
    assert_eq!(l.len(), 5, "one line per input line: {l:?}");
    assert_eq!(
        l[..4],
        ["ok f32[3,5]{1,0:T(8,128)}", "err empty input", "err empty input", "ok (f32[2]{0}, s8[])"]
    );
    assert!(
        l[4].starts_with("err layout minor_to_major field has duplicate values: {1, 1}"),
        "{}",
        l[4]
    );
}

#[test]
fn dash_is_standard_input_in_place() {
    // Arguments and `-` answered in order; standard input is read once, where `-` stands.
    let r = xlayout(&["canon", "s8[1]", "-", "", "u8[]", "-"], b"f32[2]\n\ns4[3]\n");
    assert_eq!(r.status, 1);
    assert_eq!(
        lines(&r),
        [
            "ok s8[1]{0}",
            "ok f32[2]{0}",
            "err empty input",
            "ok s4[3]{0}",
            "err empty input",
            "ok u8[]"
        ]
    );
    let r = xlayout(&["bytes", "-"], b"f32[3,5]{1,0:T(2,2)}\n");
    assert_eq!((r.status, lines(&r)), (0, vec!["ok 96"]));
}

#[test]
fn dash_as_shape_is_the_first_line_of_standard_input() {
    // The rest of standard input is then the inputs (Figure 1: (2,3) -> 17, 9 is padding).
    let stdin = b"f32[3,5]{1,0:T(2,2)}\n2,3\n\n0,0\n";
    let r = xlayout(&["offset", "-"], stdin);
    assert_eq!((r.status, lines(&r)), (1, vec!["ok 17", "err empty input", "ok 0"]));
    let r = xlayout(&["index", "-", "9", "-"], b"f32[3,5]{1,0:T(2,2)}\n17\n");
    assert_eq!((r.status, lines(&r)), (0, vec!["ok padding", "ok 2,3"]));

    let r = xlayout(&["explain", "-"], b"f32[3,5]{1,0:T(2,2)}\r\n");
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("shape        f32[3,5]{1,0:T(2,2)}\n"), "{}", r.stdout);
    let r = xlayout(&["map", "--at", "1", "-"], b"  f32[2,3,5]{0,2,1:T(2,2)L(40)}\n");
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("slice [1, :, :] of dims [2, 3, 5]\n"), "{}", r.stdout);

    // A bad shape from standard input gets its caret like an argument.
    let r = xlayout(&["map", "-"], b"f32[3,5]{1,0:T(0,2)}\n");
    assert_eq!(r.status, 1);
    assert_eq!(r.stderr.lines().nth(2), Some("                 ^"), "{}", r.stderr);
}

#[test]
fn unreadable_standard_input_is_an_io_error() {
    // Not UTF-8 is not text: the answers so far stand, then the read failure, status 2.
    let r = xlayout(&["canon"], b"f32[2]\n\xff\xfe\ns8[1]\n");
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "ok f32[2]{0}\n");
    assert_eq!(r.stderr, "xlayout: cannot read standard input: line 2 is not UTF-8\n");
    let r = xlayout(&["explain", "-"], b"\xff\n");
    assert_eq!((r.status, r.stdout.as_str()), (2, ""));
    assert_eq!(r.stderr, "xlayout: cannot read standard input: line 1 is not UTF-8\n");
    // (`hlo` reads bytes: a line of a dump that is not UTF-8 is a diagnostic, tests/hlo_cli.rs.)
}

#[cfg(target_os = "linux")]
#[test]
fn standard_input_that_fails_to_read_is_an_io_error() {
    // Reading a directory fails with EISDIR.
    let dir = std::fs::File::open("/").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xlayout")).arg("canon").stdin(dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout, b"");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("xlayout: cannot read standard input: Is a directory"), "{err}");
}

#[test]
fn bytes_is_xlas_array_size() {
    let r = xlayout(
        &[
            "bytes",
            "f32[3,5]{1,0:T(2,2)}", // 2x3 tiles of 2x2 f32: 24 * 4
            "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}", // no padding: 167772160 * 2
            "s4[3,5]{1,0:E(4)}",    // ceil(15 * 4 / 8)
            "f32[3,5]{1,0:L(64)}",  // L without tiles is ignored by XLA
            "(f32[2])",
            "f32[?]",
        ],
        b"",
    );
    assert_eq!(r.status, 1);
    let l = lines(&r);
    assert_eq!(l[..4], ["ok 96", "ok 335544320", "ok 8", "ok 60"]);
    assert!(l[4].starts_with("err `(f32[2]{0})` is a tuple"), "{}", l[4]);
    assert!(l[5].starts_with("err dimension 0 is unbounded"), "{}", l[5]);
}

#[test]
fn offset_and_index() {
    // Figure 1 of the tiled-layout document: (2,3) -> 17; offset 9 is padding.
    let r = xlayout(&["offset", "f32[3,5]{1,0:T(2,2)}", "2,3", "0, 4", "3,0", "1", "a,b"], b"");
    assert_eq!(r.status, 1);
    let l = lines(&r);
    assert_eq!(l[..2], ["ok 17", "ok 8"]);
    assert!(l[2].starts_with("err index [3, 0]: entry 0 is 3, dimension 0 has size 3"), "{}", l[2]);
    assert!(l[3].starts_with("err index [1] has 1 entries; the shape has rank 2"), "{}", l[3]);
    assert!(l[4].starts_with("err `a` is not an index entry"), "{}", l[4]);

    let r = xlayout(&["index", "f32[3,5]{1,0:T(2,2)}"], b"17\n9\n24\n-1\n");
    assert_eq!(r.status, 1);
    let l = lines(&r);
    assert_eq!(l[..2], ["ok 2,3", "ok padding"]);
    assert!(l[2].starts_with("err offset 24 is beyond the grid of 24 elements"), "{}", l[2]);
    assert!(l[3].starts_with("err `-1` is not an offset"), "{}", l[3]);

    // A scalar's index is the empty string; a tiled scalar fills a whole tile. For any other
    // shape an empty index is an empty input.
    let r = xlayout(&["offset", "u32[]{:T(128)}", ""], b"");
    assert_eq!((r.status, lines(&r)), (0, vec!["ok 0"]));
    let r = xlayout(&["offset", "u32[]"], b"\n\n");
    assert_eq!((r.status, lines(&r)), (0, vec!["ok 0", "ok 0"]));
    let r = xlayout(&["offset", "u32[2]", "", " "], b"");
    assert_eq!((r.status, lines(&r)), (1, vec!["err empty input", "err empty input"]));
    let r = xlayout(&["index", "u32[2]", ""], b"");
    assert_eq!((r.status, lines(&r)), (1, vec!["err empty input"]));
    let r = xlayout(&["index", "u32[]{:T(128)}", "0", "1"], b"");
    assert_eq!((r.status, lines(&r)), (0, vec!["ok ", "ok padding"]));
}

#[test]
fn bad_shape_argument_shows_a_caret() {
    let r = xlayout(&["offset", "f32[3,5]{1,0:T(0,2)}", "0,0"], b"");
    assert_eq!(r.status, 1);
    assert_eq!(r.stdout, "");
    let err: Vec<&str> = r.stderr.lines().collect();
    assert!(err[0].starts_with("error: layout has invalid tiles: tile dimension 0"), "{}", err[0]);
    assert_eq!(err[1], "  f32[3,5]{1,0:T(0,2)}");
    assert_eq!(err[2], "                 ^");

    let r = xlayout(&["explain", "f32[3,5]{1,0:S(1)T(2,2)}"], b"");
    assert_eq!(r.status, 1);
    let err: Vec<&str> = r.stderr.lines().collect();
    assert!(err[0].contains("layout field `T` is repeated or out of order"), "{}", err[0]);
    assert_eq!(err[2], format!("  {}^", " ".repeat(17))); // under the `T` at byte 17
}

#[test]
fn explain_names_everything_a_person_asks_about() {
    let r = xlayout(&["explain", "f32[3,5]{1,0:T(2,2)}"], b"");
    assert_eq!(r.status, 0);
    let expected = "\
shape        f32[3,5]{1,0:T(2,2)}
element      f32, 32 bits, 4 bytes each
dims         d0=3, d1=5
physical     major to minor: d0 (3), d1 (5)  [row-major, XLA's default]
tile 0       (2,2) covers the 2 most-minor axes of [3, 5], sizes [3, 5]; 4 elements per tile; padded to [4, 6]
index space  [d0/2:2, d1/2:3, d0%2:2, d1%2:2]  (offset = row-major position)
grid         24 elements for 15 logical (9 padding)
byte size    96 bytes  (XLA's ShapeUtil::ArraySize)
unpadded     60 bytes  (ShapeUtil::ByteSizeOf)
padding      36 bytes, 60.00% over the unpadded size
memory space S(0): default device memory
";
    assert_eq!(r.stdout, expected);

    let r = xlayout(&["explain", "s32[2048,1,128,128,4]{4,3,2,0,1:T(8,128)S(1)}"], b"");
    assert_eq!(r.status, 0);
    // A TPU OOM report prints 16.00G for this shape, unpadded 512.00M.
    assert!(r.stdout.contains("byte size    17,179,869,184 bytes (16.00 GiB)"), "{}", r.stdout);
    assert!(r.stdout.contains("unpadded     536,870,912 bytes (512.00 MiB)"), "{}", r.stdout);
    assert!(r.stdout.contains("padding      16,642,998,272 bytes, 3100.00% over"), "{}", r.stdout);
    assert!(r
        .stdout
        .contains("physical     major to minor: d1 (1), d0 (2048), d2 (128), d3 (128), d4 (4)"));
    assert!(r.stdout.contains("memory space S(1): fast memory (TPU VMEM)"), "{}", r.stdout);
}

#[test]
fn map_draws_figures_1_and_2() {
    let r = xlayout(&["map", "f32[3,5]{1,0:T(2,2)}"], b"");
    assert_eq!(r.status, 0);
    assert_eq!(
        r.stdout,
        " 0  1 |  4  5 |  8\n 2  3 |  6  7 | 10\n------+-------+---\n12 13 | 16 17 | 20\n\
         padding: 9 of 24 grid positions, in memory order: 9, 11, 14, 15, 18, 19, 21, 22, 23\n"
    );
    let r = xlayout(&["map", "f32[4,8]{1,0:T(2,4)(2,1)}"], b"");
    assert_eq!(
        r.stdout,
        " 0  2  4  6 |  8 10 12 14\n 1  3  5  7 |  9 11 13 15\n------------+------------\n\
         16 18 20 22 | 24 26 28 30\n17 19 21 23 | 25 27 29 31\n\
         padding: none (all 32 grid positions hold data)\n"
    );
    // --at picks the leading index; L adds a tail after the grid.
    let r = xlayout(&["map", "f32[2,3,5]{0,2,1:T(2,2)L(40)}", "--at", "1"], b"");
    assert_eq!(r.status, 0);
    assert!(r.stdout.starts_with("slice [1, :, :] of dims [2, 3, 5]\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("tail: 4 more elements after the grid (L rounds 36 up to 40)\n"));
    let r = xlayout(&["map", "f32[2,3,5]", "--at", "2"], b"");
    assert_eq!(r.status, 1);
    assert!(r.stderr.contains("--at entry 0 is 2, but dimension 0 has size 2"), "{}", r.stderr);
    // A window of Figure 1: rows 1..3, columns 2..5 (the tile boundaries after column 3 and
    // row 1 stay drawn), and what it shows of the slice.
    let r = xlayout(&["map", "f32[3,5]{1,0:T(2,2)}", "--origin", "1,2", "--window", "2,3"], b"");
    assert_eq!(r.status, 0);
    assert_eq!(
        r.stdout,
        " 6  7 | 10\n------+---\n16 17 | 20\n\
         showing element rows 1..3 of 3, columns 2..5 of 5\n\
         padding: 9 of 24 grid positions, in memory order: 9, 11, 14, 15, 18, 19, 21, 22, 23\n"
    );
}

#[test]
fn demo() {
    let r = xlayout(&[], b"");
    assert_eq!(r.status, 0);
    assert!(r.stdout.contains("== xlayout map f32[3,5]{1,0:T(2,2)}\n 0  1 |  4  5 |  8\n"));
    assert!(r.stdout.contains("== xlayout map f32[4,8]{1,0:T(2,4)(2,1)}\n"));
    assert!(r.stdout.contains("byte size    335,544,320 bytes (320.00 MiB)"));
}

#[test]
fn version() {
    for flag in ["--version", "-V"] {
        let r = xlayout(&[flag], b"");
        assert_eq!(r.status, 0);
        assert_eq!(r.stdout, format!("xlayout {}\n", env!("CARGO_PKG_VERSION")));
    }
}

/// Each command and the first line of its help.
const COMMANDS: [(&str, &str); 9] = [
    ("canon", "XLA's printed form of each shape"),
    ("bytes", "XLA's byte size of each array shape (ShapeUtil::ArraySize)"),
    ("offset", "The element offset in memory of each logical index"),
    ("index", "The logical index stored at each element offset, or `padding`"),
    ("explain", "Sizes, physical order, tiles and padding of a shape, for a person"),
    ("map", "The offset of every element of a 2-D slice, and the padding positions"),
    ("hlo", "Where the memory of HLO modules goes, buffer by buffer"),
    ("bitcast", "Whether a reshape or transpose keeps every element where it is"),
    ("relayouts", "Where HLO modules move bytes to change layouts"),
];

#[test]
fn help_for_every_command() {
    let top = xlayout(&["--help"], b"");
    assert_eq!(top.status, 0);
    assert!(top.stdout.contains("\nUsage: xlayout [COMMAND]\n"), "{}", top.stdout);
    assert_eq!(xlayout(&["help"], b"").stdout, top.stdout);
    for (command, about) in COMMANDS {
        // `--help` anywhere is help, never an input (a shape, a file name).
        let r = xlayout(&[command, "--help"], b"");
        assert_eq!((r.status, r.stderr.as_str()), (0, ""), "{command}");
        assert!(r.stdout.starts_with(&format!("{about}\n")), "{command}: {}", r.stdout);
        assert!(r.stdout.contains(&format!("\nUsage: xlayout {command} ")), "{}", r.stdout);
        assert_eq!(xlayout(&["help", command], b"").stdout, r.stdout, "{command}");
        assert_eq!(xlayout(&[command, "f32[2]", "--help"], b"").stdout, r.stdout, "{command}");
        // The command list names each command with its summary.
        // (clap pads the names to the longest, `relayouts`.)
        assert!(top.stdout.contains(&format!("  {command:<10} {about}\n")), "{}", top.stdout);
    }
}

#[test]
fn usage_errors_exit_2_with_clap_s_message() {
    let cases: [(&[&str], &str); 8] = [
        (&["frobnicate"], "error: unrecognized subcommand 'frobnicate'"),
        (&["explain"], "error: the following required arguments were not provided:"),
        (&["explain", "f32[2]", "f32[3]"], "error: unexpected argument 'f32[3]' found"),
        (&["offset"], "error: the following required arguments were not provided:"),
        (&["map"], "error: the following required arguments were not provided:"),
        (&["map", "f32[2,3]", "--at"], "error: a value is required for '--at <I,J,..>'"),
        (
            &["map", "f32[2,3,4]", "--at", "1,x"],
            "error: invalid value '1,x' for '--at <I,J,..>': `x` is not an index entry",
        ),
        (&["canon", "--frob"], "error: unexpected argument '--frob' found"),
    ];
    for (args, message) in cases {
        let r = xlayout(args, b"");
        assert_eq!((r.status, r.stdout.as_str()), (2, ""), "{args:?}");
        assert!(r.stderr.starts_with(message), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("For more information, try '--help'."), "{}", r.stderr);
    }
    // A negative offset is an input to answer, not an option.
    let r = xlayout(&["index", "f32[2]", "-1"], b"");
    assert_eq!(lines(&r), ["err `-1` is not an offset: write a non-negative integer"]);
}

#[cfg(unix)]
#[test]
fn arguments_that_are_not_utf8_are_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(env!("CARGO_BIN_EXE_xlayout"))
        .args(["canon".as_ref(), std::ffi::OsStr::from_bytes(b"f32[\xff]")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: invalid UTF-8 was detected"), "{err}");
}

#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    // `xlayout canon < big | head -1`: the reader leaves after one line.
    let mut child = spawn(&["canon"]);
    let mut stdin = child.stdin.take().unwrap();
    // 200,000 lines, far more than the pipes hold; the writer stops when xlayout exits.
    let feeder = std::thread::spawn(move || {
        let line = b"f32[3,5]{1,0:T(2,2)}\n";
        for _ in 0..200_000 {
            if stdin.write_all(line).is_err() {
                break;
            }
        }
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "ok f32[3,5]{1,0:T(2,2)}\n");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn each_answer_is_written_when_its_input_line_is_read() {
    // A script can keep xlayout open, write a line, and read its answer at once.
    let mut child = spawn(&["bytes"]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answer = String::new();
    for (shape, bytes) in [("f32[3,5]{1,0:T(2,2)}", "ok 96\n"), ("s4[3,5]{1,0:E(4)}", "ok 8\n")] {
        writeln!(stdin, "{shape}").unwrap();
        answer.clear();
        stdout.read_line(&mut answer).unwrap();
        assert_eq!(answer, bytes);
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_output_is_an_io_error() {
    // /dev/full takes no byte: every write fails with ENOSPC.
    let cases: [&[&str]; 4] =
        [&["canon", "f32[2]"], &["map", "f32[3,5]{1,0:T(2,2)}"], &[], &["--help"]];
    for args in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_xlayout"))
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "xlayout: cannot write the output: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

#[test]
fn lines_end_at_a_lone_carriage_return_too() {
    // `\n\r` is two line ends, with an empty line between.
    let r = xlayout(&["canon"], b"f32[2]\rf32[3]\r\nf32[4]\n\rs8[1]");
    assert_eq!(
        lines(&r),
        ["ok f32[2]{0}", "ok f32[3]{0}", "ok f32[4]{0}", "err empty input", "ok s8[1]{0}"]
    );
}

#[test]
fn a_line_over_a_mebibyte_is_answered_not_held() {
    let too_long = "err line too long: more than 1048576 bytes, not read";
    let mut stdin = vec![b'f'; 3 << 20];
    stdin.extend_from_slice(b"\nf32[2]\n");
    let r = xlayout(&["canon"], &stdin);
    assert_eq!((r.status, lines(&r)), (1, vec![too_long, "ok f32[2]{0}"]));
    // One byte over, at the end of the input.
    let r = xlayout(&["bytes"], &vec![b'1'; (1 << 20) + 1]);
    assert_eq!(lines(&r), [too_long]);
    // At the limit it is read, and the answer quotes it short.
    let mut stdin = vec![b'f'; 1 << 20];
    stdin.push(b'\r');
    let r = xlayout(&["canon"], &stdin);
    assert_eq!(lines(&r), [format!("err unknown element type `{}...`", "f".repeat(40))]);
    let r = xlayout(&["offset", "f32[4]{0}", "-"], &vec![b'1'; 1 << 20]);
    assert_eq!(
        lines(&r),
        [format!(
            "err `{}...` is not an index entry: write non-negative integers like `2,3`",
            "1".repeat(40)
        )]
    );
    let r = xlayout(&["index", "f32[4]{0}", "-"], &vec![b'x'; 1 << 20]);
    assert_eq!(
        lines(&r),
        [format!("err `{}...` is not an offset: write a non-negative integer", "x".repeat(40))]
    );
    // A SHAPE given as `-` on a line too long: a read failure, said once.
    let r = xlayout(&["explain", "-"], &vec![b'f'; 2 << 20]);
    assert_eq!(r.status, 2);
    assert_eq!(
        r.stderr,
        "xlayout: cannot read standard input: line 1: line too long: more than 1048576 bytes, \
         not read\n"
    );
}
