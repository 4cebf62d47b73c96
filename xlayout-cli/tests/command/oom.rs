//! `xlayout oom` as scripts and people use it: the TSV columns, JSON, the table, `--hlo`
//! joining labels to a dump, standard input, and the exit status.

use serde_json::Value;

use crate::support::{self, xlayout};

const HEADER: &str = "file\tentry\tmemory_space\tshape\tprinted_size\tsize_bytes\tlogical_bytes\tpadding_bytes\texpansion\tagrees\tinferred_tiling\tinstruction\top_name\tprinted_unpadded\tprinted_padding\tprinted_expansion\tallocation_type\topcode\tsource\tcause\tbest_layout\tbest_bytes\thlo_shape\thlo_source";

/// One row per entry with the issue's columns first; sizes exact (derived in tests/oom.rs).
#[test]
fn tsv_has_a_row_per_entry() {
    let f = "tests/data/oom/vmem_untiled.txt";
    let r = xlayout(&["oom", f], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let expected = [
        HEADER.to_string(),
        format!("{f}\t1\tvmem\tbf16[16,1280,40]{{2,1,0}}\t5.00M\t5242880\t1638400\t3604480\t3.20\tyes\t(8,128)(2,1)\tfusion.3\t-\t1.56M\t3.44M\t3.2\tscoped\tfusion\t-\td2 40 -> 128 (x3.20)\t{{1,2,0:T(8,128)(2,1)}}\t1638400\t-\t-"),
        format!("{f}\t2\tvmem\tf32[256,1000]{{1,0}}\t1.00M\t1048576\t1024000\t24576\t1.02\tyes\t(8,128)\t-\t-\t1000.0K\t24.0K\t1.0\tscoped\t-\t-\td1 1000 -> 1024 (x1.02)\t-\t-\t-\t-"),
        format!("{f}\t3\tvmem\ts8[1024,100]{{1,0}}\t128.0K\t131072\t102400\t28672\t1.28\tyes\t(8,128)(4,1)\t-\t-\t100.0K\t28.0K\t1.3\tscoped\t-\t-\td1 100 -> 128 (x1.28)\t{{0,1:T(8,128)(4,1)}}\t106496\t-\t-"),
        format!("{f}\t4\tvmem\tf64[1000,100]{{1,0}}\t1.00M\t800000\t800000\t0\t1.00\tno\t-\t-\t-\t781.2K\t-\t-\tscoped\t-\t-\t-\t-\t-\t-\t-"),
    ];
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), expected);
}

/// Entries without a readable shape have `-` in the computed columns; unreadable entries
/// are on standard error with their numbers, and the status is 1.
#[test]
fn unreadable_entries_go_to_standard_error() {
    let f = "tests/data/oom/problems.txt";
    let r = xlayout(&["oom", "--format", "tsv", f], b"");
    assert_eq!(r.status, 1);
    let rows: Vec<Vec<&str>> = r.stdout.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    let first: Vec<(&str, &str, &str)> = rows.iter().map(|c| (c[1], c[5], c[9])).collect();
    assert_eq!(first, [("2", "-", "-"), ("3", "4096", "yes"), ("4", "-", "-"), ("5", "-", "-")]);
    let errors: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(errors.len(), 5);
    assert_eq!(errors[0], format!("{f}:3: entry 1: `lots` is not a size; entry left out"));
    assert_eq!(errors[2], format!("{f}:8: entry 2: unreadable line: Mystery line without a key"));
}

/// `--hlo`: each label's instruction found in the dump, with its whole shape and source.
#[test]
fn labels_join_the_dump() {
    let r = xlayout(
        &[
            "oom",
            "--format",
            "json",
            "--hlo",
            "tests/data/oom/tpu_2024_module.txt",
            "tests/data/oom/tpu_2024_new_labels.txt",
        ],
        b"",
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], 1);
    let report = &v["reports"][0];
    assert_eq!(report["memory_space"], "hbm");
    assert_eq!(report["entries"][0]["instruction"], "broadcast.6042.remat3");
    assert_eq!(report["entries"][0]["recomputed"]["sizes"]["array_bytes"], 4_294_967_296u64);
    assert_eq!(report["entries"][0]["recomputed"]["agrees"]["size"], true);
    let joined = &report["hlo"];
    assert_eq!(joined[0]["line"], 6);
    assert_eq!(joined[0]["shape"], "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}");
    assert_eq!(joined[1]["source"], "model.py:42");
    assert_eq!(joined[1]["op_name"], "aten__expand");
    let tsv = xlayout(
        &[
            "oom",
            "--hlo",
            "tests/data/oom/tpu_2024_module.txt",
            "tests/data/oom/tpu_2024_new_labels.txt",
        ],
        b"",
    );
    let row: Vec<&str> = tsv.stdout.lines().nth(1).unwrap().split('\t').collect();
    assert_eq!(&row[22..], ["bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}", "model.py:41"]);
}

#[test]
fn the_table_for_people() {
    let text = std::fs::read(support::root().join("tests/data/oom/e1000_crlf.txt")).unwrap();
    let r = xlayout(&["oom", "--format", "table"], &text);
    assert_eq!(r.status, 0);
    let expected = "\
standard input: TPU out-of-memory report (E1000), memory space hbm: used 17.77G of 15.75G, 2.02G over
HLO temp 17.77G, 98.6% utilization printed; Unpadded / Padded = 98.6%: agrees
2 entries (2 with a readable shape, 2 agreeing with it): 261.00M listed, 65.56M of data, 195.44M padding (74.9% of it)

  #  printed  size     data    padding  x      agrees  shape                                   instruction    why                         better layout
  1  256.00M  256.00M  64.00M  192.00M  4.00x  yes     pred[64,512,2048]{2,1,0:T(8,128)E(32)}  lt.17          E(32) 8 -> 32 bits (x4.00)  -
  2  5.00M    5.00M    1.56M   3.44M    3.20x  yes     bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}   convolution.5  d2 40 -> 128 (x3.20)        {1,2,0:T(8,128)(2,1)} 1.56M

  entry 1: the label is cut short by the report
  entry 1: op_name jit(train_step)/jit(main)/attention/lt (/srv/model/attention.py:88)
  entry 2: op_name jit(train_step)/jit(main)/dense/dot_general (/srv/model/attention.py:97)
";
    assert_eq!(r.stdout, expected);
    // What does not agree is said, with what the shape gives.
    let r = xlayout(&["oom", "--format", "table", "tests/data/oom/vmem_untiled.txt"], b"");
    assert!(
        r.stdout.contains("  entry 4: printed Size 1.00M (the shape gives 781.2K)\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  entry 3: printed without tiles; the TPU default tiling T(8,128)(4,1) gives the printed size (inferred)\n"));
}

#[test]
fn several_reports_and_csv() {
    let r = xlayout(
        &[
            "oom",
            "--format",
            "csv",
            "tests/data/oom/tpu_2020_logged.txt",
            "tests/data/oom/gpu_peak_buffers.txt",
        ],
        b"",
    );
    assert_eq!(r.status, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 1 + 2 + 5);
    assert!(
        lines[3].starts_with(
            "tests/data/oom/gpu_peak_buffers.txt,1,-,\"f32[5104,257152]\",4.89GiB,5250015232,"
        ),
        "{}",
        lines[3]
    );
}

/// The README's example is what the command prints.
#[test]
fn the_readme_example_is_the_real_output() {
    let readme = include_str!("../../../README.md");
    let command = "$ xlayout oom --format table tests/data/oom/vmem_untiled.txt\n";
    let start = readme.find(command).expect("the README shows the table") + command.len();
    let shown = &readme[start..start + readme[start..].find("```").unwrap()];
    let r = xlayout(&["oom", "--format", "table", "tests/data/oom/vmem_untiled.txt"], b"");
    assert_eq!(shown, r.stdout);
}
