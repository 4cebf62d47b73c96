//! The `xlayout` command as a user runs it: arguments, standard input, output lines, exit
//! status. Expected values are XLA's (the conformance data) or derived in the comments.

use std::io::Write;
use std::process::{Command, Stdio};

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn xlayout(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xlayout"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        status: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

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

    let stdin = b"f32[3,5]{1,0:T(08,128)}\n\n   \n(f32[2], s8[])\nf32[3,5]{1,1}\n";
    let r = xlayout(&["canon"], stdin);
    assert_eq!(r.status, 1);
    let l = lines(&r);
    assert_eq!(l.len(), 3, "one line per non-empty input line: {l:?}");
    assert_eq!(l[0], "ok f32[3,5]{1,0:T(8,128)}");
    assert_eq!(l[1], "ok (f32[2]{0}, s8[])");
    assert!(
        l[2].starts_with("err layout minor_to_major field has duplicate values: {1, 1}"),
        "{}",
        l[2]
    );
}

#[test]
fn non_utf8_stdin_line_is_an_error_line() {
    let r = xlayout(&["canon"], b"f32[2]\n\xff\xfe\ns8[1]\n");
    assert_eq!(r.status, 1);
    assert_eq!(lines(&r), ["ok f32[2]{0}", "err the input line is not UTF-8", "ok s8[1]{0}"]);
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

    // A scalar's index is the empty string; a tiled scalar fills a whole tile.
    let r = xlayout(&["offset", "u32[]{:T(128)}", ""], b"");
    assert_eq!((r.status, lines(&r)), (0, vec!["ok 0"]));
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
}

#[test]
fn demo_and_usage() {
    let r = xlayout(&[], b"");
    assert_eq!(r.status, 0);
    assert!(r.stdout.contains("== xlayout map f32[3,5]{1,0:T(2,2)}\n 0  1 |  4  5 |  8\n"));
    assert!(r.stdout.contains("== xlayout map f32[4,8]{1,0:T(2,4)(2,1)}\n"));
    assert!(r.stdout.contains("byte size    335,544,320 bytes (320.00 MiB)"));
    for bad in [&["frobnicate"][..], &["explain"], &["explain", "a", "b"], &["offset"], &["map"]] {
        let r = xlayout(bad, b"");
        assert_eq!(r.status, 2, "{bad:?}");
        assert!(r.stderr.contains("usage: xlayout"), "{bad:?}");
    }
    let r = xlayout(&["help"], b"");
    assert_eq!(r.status, 0);
    assert!(r.stdout.starts_with("usage: xlayout"));
}

const DUMP: &str = "\
HloModule jit_f, entry_computation_layout={(f32[3,5]{1,0:T(2,2)}, bf16[16,256]{1,0:T(8,128)(2,1)})->f32[3,5]{1,0:T(2,2)}}

ENTRY %main (p0: f32[3,5], p1: bf16[16,256]) -> f32[3,5] {
  %p0 = f32[3,5]{1,0:T(2,2)} parameter(0)
  %p1 = bf16[16,256]{1,0:T(8,128)(2,1)} parameter(1)
  %c = f32[] constant(1)
  %b = f32[3,5]{1,0:T(2,2)S(1)} broadcast(f32[] %c), dimensions={}
  ROOT %add = f32[3,5]{1,0:T(2,2)} add(f32[3,5]{1,0:T(2,2)} %p0, f32[3,5]{1,0:T(2,2)S(1)} %b)
}
";

#[test]
fn hlo_dump_analysis() {
    let r = xlayout(&["hlo"], DUMP.as_bytes());
    assert_eq!(r.status, 0, "{}", r.stderr);
    let l = lines(&r);
    // 3 shapes in the entry layout, 3 in the signature, 8 in the instructions.
    assert_eq!(l[0], "standard input: 14 array shapes, 6 distinct, 0 invalid");
    // Distinct: f32[3,5]{1,0:T(2,2)} 96/60, {..S(1)} 96/60, bf16 T(8,128)(2,1) 8192/8192,
    // f32[3,5]{1,0} 60/60, bf16[16,256]{1,0} 8192/8192, f32[] 4/4.
    assert_eq!(
        l[1],
        "distinct shapes, each once: 16640 bytes allocated (ArraySize), 16568 bytes of data, \
         72 bytes of padding (0.4% over the data)"
    );
    assert!(r
        .stdout
        .contains("          96           60     60.0%      2      7  f32[3,5]{1,0:T(2,2)S(1)}\n"));
    // Entry layout twice (parameter, result), %p0, the root, the root's operand: 5 times.
    let row = "          96           60     60.0%      5      1  f32[3,5]{1,0:T(2,2)}\n";
    assert!(r.stdout.contains(row), "{}", r.stdout);
    assert!(r.stdout.contains("memory spaces (occurrences): S(0): 12, S(1): 2\n"), "{}", r.stdout);

    let bad = format!("{DUMP}  %bad = s8[4]{{0:T(0)}} parameter(2)\n");
    let r = xlayout(&["hlo"], bad.as_bytes());
    assert_eq!(r.status, 1);
    assert!(
        r.stdout.contains("invalid shapes:\n  line 10: layout has invalid tiles"),
        "{}",
        r.stdout
    );

    let r = xlayout(&["hlo", "/nonexistent/dump.txt"], b"");
    assert_eq!(r.status, 1);
    assert!(r.stderr.starts_with("xlayout: cannot read /nonexistent/dump.txt"), "{}", r.stderr);
}
