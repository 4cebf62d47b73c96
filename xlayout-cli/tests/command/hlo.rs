//! `xlayout hlo` as scripts and people use it: the TSV/CSV/JSON contract, the table, files,
//! directories and standard input, problems on standard error, and the exit status.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::support::{self, Run};

/// Runs `xlayout hlo ARGS` from the repository root.
fn xlayout(args: &[&str], stdin: &[u8]) -> Run {
    let args: Vec<&str> = std::iter::once("hlo").chain(args.iter().copied()).collect();
    support::xlayout(&args, stdin)
}

const OOM: &str = "tests/data/hlo/tpu_oom_shapes.txt";

const HEADER: &str = "file\tline\tcomputation\tinstruction\topcode\tshape\tmemory_spaces\tarray_bytes\tlogical_bytes\tpadding_bytes\ttiling_padding_bytes\twidening_bytes\texpansion\tunsized_leaves\towns_buffer\townership\towned_bytes\top_name\tsource_file\tsource_line\tcauses\tbest_layout\tbest_bytes";

#[test]
fn tsv_is_one_row_per_instruction_in_file_order() {
    // Not a terminal: TSV without asking.
    let r = xlayout(&[OOM], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let f = OOM;
    let expected = [
        HEADER.to_string(),
        format!("{f}\t4\tmain.9\tArg_0.1\tparameter\ts32[8388608,8,4]{{2,1,0:T(8,128)}}\t0\t34359738368\t1073741824\t33285996544\t33285996544\t0\t32.0\t0\tyes\towns\t34359738368\tindices\t-\t-\td2 4 -> 128 (x32.0)\t{{0,1,2:T(8,128)}}\t1073741824"),
        format!("{f}\t5\tmain.9\tArg_1.2\tparameter\tu32[12582912,1]{{1,0:T(8,128)}}\t0\t6442450944\t50331648\t6392119296\t6392119296\t0\t128\t0\tyes\towns\t6442450944\tkeys\t-\t-\td1 1 -> 128 (x128)\t{{0,1:T(8,128)}}\t402653184"),
        format!("{f}\t6\tmain.9\tArg_2.3\tparameter\tbf16[2048,1,2048,128]{{0,1,3,2:T(4,128)(2,1)}}\t0\t4294967296\t1073741824\t3221225472\t3221225472\t0\t4.00\t0\tyes\towns\t4294967296\tkv_cache\t-\t-\td1 1 -> 4 (x4.00)\t{{0,3,1,2:T(4,128)(2,1)}}\t1073741824"),
        format!("{f}\t7\tmain.9\tmask.4\tfusion\tpred[64,512,2048]{{2,1,0:T(8,128)E(32)}}\t0\t268435456\t67108864\t201326592\t0\t201326592\t4.00\t0\tyes\towns\t268435456\tjit(oom_examples)/lt\t/srv/model/attention.py\t88\tE(32) 8 -> 32 bits (x4.00)\t-\t-"),
        format!("{f}\t8\tmain.9\tproj.5\tfusion\tbf16[16,1280,40]{{2,1,0:T(8,128)(2,1)}}\t0\t5242880\t1638400\t3604480\t3604480\t0\t3.20\t0\tyes\towns\t5242880\tjit(oom_examples)/dense/dot_general\t/srv/model/attention.py\t97\td2 40 -> 128 (x3.20)\t{{1,2,0:T(8,128)(2,1)}}\t1638400"),
        format!("{f}\t9\tmain.9\ttuple.6\ttuple\t(pred[64,512,2048]{{2,1,0:T(8,128)E(32)}}, bf16[16,1280,40]{{2,1,0:T(8,128)(2,1)}})\t0\t273678336\t68747264\t204931072\t3604480\t201326592\t3.98\t0\tno\talias\t0\t-\t-\t-\t{{0}}: E(32) 8 -> 32 bits (x4.00); {{1}}: d2 40 -> 128 (x3.20)\t{{1,2,0:T(8,128)(2,1)}}\t1638400"),
    ];
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), expected);
    // Every row has every column.
    assert!(r.stdout.lines().all(|l| l.split('\t').count() == 23));
}

#[test]
fn tsv_and_csv_escape_what_would_break_a_row() {
    let dump = b"%a = f32[2]{0} parameter(0), metadata={op_name=\"tab\\there, \\\"quoted\\\"\\nnewline\"}\n";
    let r = xlayout(&["-"], dump);
    let row = r.stdout.lines().nth(1).unwrap();
    assert_eq!(row.split('\t').nth(17), Some("tab\\there, \"quoted\"\\nnewline"));
    let r = xlayout(&["--format", "csv", "-"], dump);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], HEADER.replace('\t', ","));
    // Escaped as in TSV (one line per record), then quoted: the op_name holds a comma and
    // quotes.
    assert_eq!(
        lines[1],
        "standard input,1,-,a,parameter,f32[2]{0},0,8,8,0,0,0,1.00,0,yes,owns,8,\"tab\\there, \"\"quoted\"\"\\nnewline\",-,-,,-,-"
    );
    assert_eq!(lines.len(), 2);
    // NUL and other control bytes (raw in the dump's text): `\xNN` in both, as in TSV.
    let dump = b"%b = f32[2]{0} parameter(0), metadata={op_name=\"x\x00y\x1bz\\\\w\"}\n";
    for format in ["tsv", "csv"] {
        let r = xlayout(&["--format", format, "-"], dump);
        let row = r.stdout.lines().nth(1).unwrap();
        assert!(row.contains(r"x\x00y\x1bz\\w"), "{format}: {row:?}");
    }
    let r = xlayout(&["--format", "csv", "tests/data/hlo/tpu_fragment.txt"], b"");
    assert_eq!(
        r.stdout.lines().nth(4),
        Some("tests/data/hlo/tpu_fragment.txt,7,-,all-gather-start.4,all-gather-start,\"(f32[1024,500]{1,0:T(8,128)}, f32[4096,500]{1,0:T(8,128)})\",0,10485760,10240000,245760,245760,0,1.02,0,yes,partial,8388608,-,-,-,{0}: d1 500 -> 512 (x1.02); {1}: d1 500 -> 512 (x1.02),-,-")
    );
}

#[test]
fn json_is_one_object_with_exact_integers() {
    let r = xlayout(&["--format", "json", OOM, "tests/data/hlo/tpu_train_step.txt"], b"");
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], 4);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let f = &files[0];
    assert_eq!(
        (f["file"].as_str(), f["module"].as_str(), f["entry"].as_str()),
        (Some(OOM), Some("jit_oom_examples"), Some("main.9"))
    );
    assert_eq!(f["totals"]["owned"]["array_bytes"].as_u64(), Some(45_370_834_944));
    assert_eq!(f["totals"]["owned"]["instructions"].as_u64(), Some(5));
    assert_eq!(f["instructions"].as_array().unwrap().len(), 6);
    let first = &f["top"]["expansion"][0];
    assert_eq!(first["instruction"], "Arg_1.2");
    assert_eq!(first["expansion"].as_f64(), Some(128.0));
    assert_eq!(first["best_layout"], "{0,1:T(8,128)}");
    assert_eq!(first["best_bytes"].as_u64(), Some(402_653_184));
    let mask = &f["instructions"][3];
    assert_eq!(mask["widening_bytes"].as_u64(), Some(201_326_592));
    // Names many rows share are numbers in the file's tables, each written once.
    assert_eq!((mask["source_file"].as_u64(), mask["source_line"].as_u64()), (Some(0), Some(88)));
    assert_eq!(f["source_files"], serde_json::json!(["/srv/model/attention.py"]));
    assert_eq!(
        (mask["computation"].as_u64(), f["computations"][0].as_str()),
        (Some(0), Some("main.9"))
    );
    assert_eq!(mask["ownership"], "owns");
    assert!(f["diagnostics"].as_array().unwrap().is_empty());
    // The total over both files, per memory space.
    let t = &v["total"];
    assert_eq!(t["files"].as_u64(), Some(2));
    assert_eq!(t["owned"]["array_bytes"].as_u64(), Some(45_370_834_944 + 81_921_028));
    let spaces: Vec<(i64, u64)> = t["by_memory_space"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["key"].as_i64().unwrap(), s["instructions"].as_u64().unwrap()))
        .collect();
    assert_eq!(spaces, [(0, 12), (1, 1), (2, 1)]);
}

#[test]
fn the_table_for_people() {
    let r = xlayout(&["--format", "table", "--top", "2", OOM], b"");
    assert_eq!(r.status, 0);
    let expected = "\
tests/data/hlo/tpu_oom_shapes.txt: module jit_oom_examples, scheduled; 1 computation, 6 instructions, 10 lines
allocated: between 2.05G and 42.25G; not modelled: layouts with tiles or a memory space: the allocation predicted is XLA:CPU's, and another backend assigns differently; as modelled, 2.30G (2467889168 bytes) = arguments 2.05G + outputs 257.56M - aliased 0B + temporaries 0B
live-range peak: 2.30G (2467889168 bytes) live at step 5 of 6, tuple.6 (tuple in main.9), by XLA's HloLiveRange rule (values sharing memory each counted)
sum of every buffer the program owns, not its peak: 5 instructions, 42.25G allocated for 2.11G of data, 40.14G padding (20.0x)
  memory space  instructions  allocated  data   padding  x
  S(0)          5             42.25G     2.11G  40.14G   20.0x
  computation  instructions  allocated  data   padding  x
  main.9       5             42.25G     2.11G  40.14G   20.0x

largest buffers:
  allocated  padding  x      line  instruction  opcode     shape                             op_name
  32.00G     31.00G   32.0x  4     Arg_0.1      parameter  s32[8388608,8,4]{2,1,0:T(8,128)}  indices
  6.00G      5.95G    128x   5     Arg_1.2      parameter  u32[12582912,1]{1,0:T(8,128)}     keys

most padding:
  padding  allocated  x      line  instruction  shape                             why                  better layout
  31.00G   32.00G     32.0x  4     Arg_0.1      s32[8388608,8,4]{2,1,0:T(8,128)}  d2 4 -> 128 (x32.0)  {0,1,2:T(8,128)} 1.00G
  5.95G    6.00G      128x   5     Arg_1.2      u32[12582912,1]{1,0:T(8,128)}     d1 1 -> 128 (x128)   {0,1:T(8,128)} 384.00M

largest expansion:
  x      allocated  padding  line  instruction  shape                             why                  better layout
  128x   6.00G      5.95G    5     Arg_1.2      u32[12582912,1]{1,0:T(8,128)}     d1 1 -> 128 (x128)   {0,1:T(8,128)} 384.00M
  32.0x  32.00G     31.00G   4     Arg_0.1      s32[8388608,8,4]{2,1,0:T(8,128)}  d2 4 -> 128 (x32.0)  {0,1,2:T(8,128)} 1.00G
";
    assert_eq!(r.stdout, expected);
    // Units: exact counts, or XLA's own HumanReadableNumBytes.
    let r = xlayout(&["--format", "table", "--bytes", "exact", "--top", "1", OOM], b"");
    assert!(
        r.stdout.contains("\n  34359738368  33285996544  32.0x  4     Arg_0.1"),
        "{}",
        r.stdout
    );
    let r = xlayout(&["--format", "table", "--bytes", "iec", "--top", "1", OOM], b"");
    assert!(r.stdout.contains("\n  32.00GiB   31.00GiB  32.0x  4     Arg_0.1"), "{}", r.stdout);
    // Groups, and the files' total.
    let r = xlayout(
        &["--format", "table", "--by", "opcode", OOM, "tests/data/hlo/tpu_train_step.txt"],
        b"",
    );
    // Parameters: 32 GiB + 6 GiB + 4 GiB for 1 GiB + 48 MiB + 1 GiB of data.
    assert!(r.stdout.contains("\nowned buffers by opcode:\n  opcode     instructions  allocated  data    padding  x\n  parameter  3             42.00G     2.05G   39.95G   20.5x\n  fusion     2             261.00M    65.56M  195.44M  3.98x\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "\ntotal of 2 files: 36 instructions\nsum of every buffer the programs own, not a peak: 13 instructions, 42.33G allocated"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn groups_as_rows() {
    let r = xlayout(&["--by", "op", "tests/data/hlo/tpu_train_step.txt"], b"");
    let f = "tests/data/hlo/tpu_train_step.txt";
    let expected = [
        "file\tgroup_by\tkey\tinstructions\tarray_bytes\tlogical_bytes\tpadding_bytes\ttiling_padding_bytes\twidening_bytes\texpansion\tsaturated".to_string(),
        format!("{f}\top\t-\t1\t20971524\t20971524\t0\t0\t0\t1.00\tno"),
        format!("{f}\top\tjit(train_step)/sgd\t1\t20971520\t20971520\t0\t0\t0\t1.00\tno"),
        format!("{f}\top\tparams['dense']['kernel']\t1\t20971520\t20971520\t0\t0\t0\t1.00\tno"),
        format!("{f}\top\tjit(train_step)/dense\t1\t10485760\t10485760\t0\t0\t0\t1.00\tno"),
        format!("{f}\top\tbatch['x']\t1\t5242880\t1638400\t3604480\t3604480\t0\t3.20\tno"),
        format!("{f}\top\tjit(train_step)\t2\t3277312\t3276804\t508\t508\t0\t1.00\tno"),
        format!("{f}\top\tbatch['y']\t1\t512\t64\t448\t448\t0\t8.00\tno"),
    ];
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), expected);
}

/// Options that would change nothing are usage errors, as `hlo --peak` is: `--op-depth`
/// without `--by op` (it groups op_name paths, which only `--by op` makes), and an explicit
/// `--format` beside `--html -` (the page is then the output); `peak` takes `--html -` the
/// same way. `--by op --op-depth 1` does group by the first part.
#[test]
fn options_that_would_do_nothing_are_usage_errors() {
    let dump = "tests/data/hlo/tpu_train_step.txt";
    let cases: [(&[&str], &str); 5] = [
        (&["hlo", "--op-depth", "2", dump], "with no --by it would change nothing"),
        (&["hlo", "--by", "opcode", "--op-depth", "2", dump], "with --by opcode it would"),
        (&["hlo", "--html", "-", "--format", "json", dump], "where --format json would write"),
        (&["hlo", "--format", "tsv", "--html", "-", dump], "where --format tsv would write"),
        (&["peak", "--html", "-", "--format", "csv", dump], "where --format csv would write"),
    ];
    for (args, says) in cases {
        let r = support::xlayout(args, b"");
        assert_eq!((r.status, r.stdout.as_str()), (2, ""), "{args:?}");
        assert!(
            r.stderr.starts_with("error: ") && r.stderr.contains(says),
            "{args:?}: {}",
            r.stderr
        );
    }
    // The three `jit(train_step)/...` groups of groups_as_rows, merged: 1 + 1 + 2
    // instructions, 20971520 + 10485760 + 3277312 bytes.
    let r = xlayout(&["--by", "op", "--op-depth", "1", dump], b"");
    assert_eq!(r.status, 0, "{}", r.stderr);
    let groups: Vec<Vec<&str>> =
        r.stdout.lines().skip(1).map(|l| l.split('\t').skip(2).take(3).collect()).collect();
    assert_eq!(
        groups,
        [
            ["jit(train_step)", "4", "34734592"],
            ["-", "1", "20971524"],
            ["params['dense']['kernel']", "1", "20971520"],
            ["batch['x']", "1", "5242880"],
            ["batch['y']", "1", "512"],
        ]
    );
}

/// Three parameters of 2^63 - 1 bytes own more than 64 bits count: the sums stop at
/// 2^64 - 1 and say so (they printed 16.00E as if it were the sum): `>=` and a line in the
/// table, `"saturated": true` in JSON, a `saturated` column of the groups; the same for the
/// entries of an out-of-memory report.
#[test]
fn a_saturated_sum_says_it_saturated() {
    let file = support::root().join("tests/data/hlo/saturated.txt");
    let text = std::fs::read_to_string(file).unwrap();
    let r = xlayout(&["--format", "table", "-"], text.as_bytes());
    assert_eq!(r.status, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[2..8],
        [
            "sum of every buffer the program owns, not its peak: 3 instructions, >=16.00E allocated for >=16.00E of data, padding not known",
            "sums marked >= reached 2^64 - 1 bytes and stopped there: each is at least what it says (the JSON's \"saturated\": true)",
            "  memory space  instructions  allocated  data      padding  x",
            "  S(0)          3             >=16.00E   >=16.00E  -        -",
            "  computation  instructions  allocated  data      padding  x",
            "  e            3             >=16.00E   >=16.00E  -        -",
        ]
    );
    let r = xlayout(&["--format", "json", "-"], text.as_bytes());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let owned = &v["files"][0]["totals"]["owned"];
    assert_eq!(
        (owned["array_bytes"].as_u64(), owned["saturated"].as_bool()),
        (Some(u64::MAX), Some(true))
    );
    assert_eq!(v["total"]["owned"]["saturated"].as_bool(), Some(true));
    let r = xlayout(&["--by", "opcode", "--format", "tsv", "-"], text.as_bytes());
    assert_eq!(r.stdout.lines().nth(1).unwrap().rsplit('\t').next(), Some("yes"));
    // Two of them: 2^64 - 2 bytes, not saturated.
    let two = text.replace("  ROOT %c = u8[9223372036854775807]{0} parameter(2)\n", "");
    let r = xlayout(&["--format", "json", "-"], two.as_bytes());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let owned = &v["files"][0]["totals"]["owned"];
    assert_eq!(
        (owned["array_bytes"].as_u64(), owned["saturated"].as_bool()),
        (Some(u64::MAX - 1), Some(false))
    );
    let entry = "  1. Size: 8.00E\n     Shape: u8[9223372036854775807]{0}\n";
    let report = entry.repeat(3);
    let r = support::xlayout(&["oom", "--format", "table", "-"], report.as_bytes());
    assert!(
        r.stdout.contains("3 entries (3 with a readable shape, 3 agreeing with it): >=16.00E listed, >=16.00E of data, padding not known\nsums marked >= reached 2^64 - 1 bytes"),
        "{}",
        r.stdout
    );
}

#[test]
fn problems_go_to_standard_error_with_file_and_line() {
    let r = xlayout(&["tests/data/hlo/problems.txt"], b"");
    assert_eq!(r.status, 1);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 10, "{}", r.stderr);
    assert!(lines[0].starts_with("tests/data/hlo/problems.txt:4:23: invalid shape `f32[3,5]{1,0:T(0,2)}`: layout has invalid tiles"));
    assert_eq!(lines[2], "tests/data/hlo/problems.txt:7: unreadable line: `this line is not HLO`");
    assert_eq!(lines[9], "tests/data/hlo/problems.txt:14: `}` closes no computation");
    // The rest is read: 6 instructions, 3 of them with shapes.
    assert_eq!(r.stdout.lines().count(), 7);
    assert!(r.stdout.contains("\tr\tnegate\tf32[3,5]{1,0:T(2,2)}\t0\t96\t60\t36\t36\t0\t1.60\t"));
    assert!(r
        .stdout
        .contains("\tp\tparameter\tf32[3,5]{1,0:T(0,2)}\t\t-\t-\t-\t-\t-\t-\t-\tyes\t"));
    // The table says so too.
    let r = xlayout(&["--format", "table", "tests/data/hlo/problems.txt"], b"");
    assert!(r
        .stdout
        .contains("\n10 problems reading this file (on standard error, with their lines)\n"));
}

#[test]
fn bytes_that_are_not_utf8_are_read_and_reported() {
    let r = xlayout(
        &[],
        b"HloModule m\n\xff\n%a = f32[2]{0} parameter(0), metadata={op_name=\"caf\xe9\"}\n",
    );
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stderr,
        "standard input:2:1: byte 12 of the file (0xff) is not UTF-8; the line is read with U+FFFD in place of each bad sequence\n\
         standard input:2: unreadable line: `\u{fffd}`\n\
         standard input:3:52: byte 65 of the file (0xe9) is not UTF-8; the line is read with U+FFFD in place of each bad sequence\n"
    );
    assert!(r.stdout.ends_with("\tyes\towns\t8\tcaf\u{fffd}\t-\t-\t\t-\t-\n"), "{}", r.stdout);
}

#[test]
fn limits_for_ci() {
    // Arg_1.2 takes 128x its data; nothing takes more than 128x.
    let r = xlayout(&["--max-expansion", "32", OOM], b"");
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stderr,
        "tests/data/hlo/tpu_oom_shapes.txt:5: Arg_1.2 takes 128x its data (6442450944 for 50331648), more than --max-expansion 32\n"
    );
    let r = xlayout(&["--max-expansion", "128", OOM], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let r = xlayout(&["--max-expansion", "31.9", OOM], b"");
    assert_eq!(r.stderr.lines().count(), 2);
    // --budget holds what is allocated. A TPU module: XLA:CPU's assignment is not its own,
    // so the gate holds the bounds (the entry parameters, 2.05G, at least; every value in
    // an allocation of its own, with its tiling padding, 42.25G at most).
    let r = xlayout(&["--budget", "45370835008", OOM], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let r = xlayout(&["--budget", "2G", OOM], b"");
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stderr,
        "tests/data/hlo/tpu_oom_shapes.txt: allocated at least (a rule is not modelled) 2197815296 bytes (2.05G) is 50331648 bytes (48.00M) over --budget 2147483648 bytes (2.00G)\n"
    );
    let r = xlayout(&["--budget", "10G", OOM], b"");
    assert_eq!(r.status, 1);
    assert!(
        r.stderr.starts_with("tests/data/hlo/tpu_oom_shapes.txt: allocated may exceed --budget 10737418240 bytes (10.00G): at least 2197815296 bytes (2.05G), at most 45370835008 bytes (42.25G), as rules are not modelled (layouts with tiles"),
        "{}",
        r.stderr
    );
    // A CPU module: its allocation, exactly (scan_cumsum: 8404 bytes).
    let scan = "tests/data/hlo/jax_cpu/scan_cumsum";
    let r = xlayout(&["--budget", "8404", scan], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let r = xlayout(&["--budget", "8K", scan], b"");
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stderr,
        "tests/data/hlo/jax_cpu/scan_cumsum/after_optimizations.txt: allocated (XLA:CPU's buffer assignment, predicted) 8404 bytes (8.2K) is 212 bytes over --budget 8192 bytes (8.0K)\n"
    );
    // A module with no schedule has no allocation to hold to it.
    let r = xlayout(&["--budget", "1T", "-"], b"%a = f32[2]{0} parameter(0)\n");
    assert_eq!(r.status, 1);
    assert!(r.stderr.starts_with("standard input: not scheduled (no is_scheduled=true): there is no allocation to hold to --budget 1099511627776;"), "{}", r.stderr);
}

#[test]
fn directories_by_stage() {
    let dir = std::env::temp_dir().join(format!("xlayout-hlo-cli-{}", std::process::id()));
    let sub = dir.join("run2");
    std::fs::create_dir_all(&sub).unwrap();
    let module = "%a = f32[2]{0} parameter(0)\n";
    for name in [
        "module_0001.jit_f.before_optimizations.txt",
        "module_0001.jit_f.cpu_after_optimizations.txt",
        "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt",
        "module_0001.jit_f.cpu_after_optimizations-memory-usage-report.txt",
        "module_0001.jit_f.ir-no-opt.ll",
        "run2/module_0002.jit_g.sm_8.0_gpu_after_optimizations.txt",
    ] {
        std::fs::write(dir.join(name), module).unwrap();
    }
    let d = dir.to_str().unwrap();
    let files = |stage: &str| {
        let r = xlayout(&["--stage", stage, d], b"");
        assert_eq!(r.status, 0, "{}", r.stderr);
        let names: Vec<String> = r
            .stdout
            .lines()
            .skip(1)
            .map(|l| l.split('\t').next().unwrap().strip_prefix(d).unwrap().to_string())
            .collect();
        names
    };
    assert_eq!(
        files("after"),
        [
            "/module_0001.jit_f.cpu_after_optimizations.txt",
            "/run2/module_0002.jit_g.sm_8.0_gpu_after_optimizations.txt"
        ]
    );
    assert_eq!(files("before"), ["/module_0001.jit_f.before_optimizations.txt"]);
    assert_eq!(files("all").len(), 3);
    let empty = dir.join("run3");
    std::fs::create_dir_all(&empty).unwrap();
    let r = xlayout(&[empty.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(r.status, 1);
    assert!(
        r.stderr.ends_with("run3: no module text of stage after here (see --stage)\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn usage_and_input_errors() {
    for args in [
        &["--format", "xml", OOM][..],
        &["--max-expansion", "lots", OOM],
        &["--min-bytes", "-1", OOM],
        &["--budget", "16X", OOM],
        &["--by", "layer", OOM],
    ] {
        let r = xlayout(args, b"");
        assert_eq!((r.status, r.stdout.as_str()), (2, ""), "{args:?}");
        assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    }
    let r = xlayout(&["/nonexistent/dump.txt"], b"");
    assert_eq!(r.status, 2);
    assert!(r.stderr.starts_with("xlayout: cannot read /nonexistent/dump.txt"), "{}", r.stderr);
}

#[test]
fn a_closed_pipe_ends_a_long_listing_quietly() {
    // `xlayout hlo big.txt | head -1`.
    let line = "  %a = f32[1024,1000]{1,0:T(8,128)} parameter(0), metadata={op_name=\"x\"}\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_xlayout"))
        .args(["hlo", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(line.repeat(200_000).as_bytes());
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    stdout.read_line(&mut header).unwrap();
    assert!(header.starts_with("file\tline\t"));
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// The README's worked example is what the command prints.
#[test]
fn the_readme_example_is_the_real_output() {
    let readme = include_str!("../../../README.md");
    let command = "$ xlayout hlo --format table --top 3 tests/data/hlo/tpu_train_step.txt\n";
    let start = readme.find(command).expect("the README shows the table") + command.len();
    let shown = &readme[start..start + readme[start..].find("```").unwrap()];
    let r = xlayout(&["--format", "table", "--top", "3", "tests/data/hlo/tpu_train_step.txt"], b"");
    assert_eq!(shown, r.stdout);
    // And the JSON excerpt is `.files[0].top.padding[0]`.
    let start = readme.find("```json\n").unwrap() + 8;
    let shown: serde_json::Value =
        serde_json::from_str(&readme[start..start + readme[start..].find("```").unwrap()]).unwrap();
    let r = xlayout(&["--format", "json", "tests/data/hlo/tpu_train_step.txt"], b"");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(shown, v["files"][0]["top"]["padding"][0]);
}

#[test]
fn a_tree_of_real_dumps() {
    // tests/data/hlo/jax_cpu: 59 programs, each a folder with its before and after modules
    // and XLA's reports beside them.
    for (stage, files) in [("after", 59), ("before", 59), ("all", 118)] {
        let r = xlayout(&["--format", "json", "--stage", stage, "tests/data/hlo/jax_cpu"], b"");
        assert_eq!((r.status, r.stderr.as_str()), (0, ""), "{stage}");
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["files"].as_array().unwrap().len(), files, "{stage}");
        assert_eq!(v["total"]["files"].as_u64(), Some(files as u64));
    }
}
