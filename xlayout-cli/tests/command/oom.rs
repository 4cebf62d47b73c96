//! `xlayout oom` as scripts and people use it: the TSV columns, JSON, the table, `--hlo`
//! joining labels to a dump, standard input, and the exit status.

use serde_json::Value;

use crate::support::{self, xlayout};

/// The columns, each (after `file`) a key of the JSON `entries`.
const COLUMNS: [&str; 41] = [
    "file",
    "entry",
    "line",
    "memory_space",
    "shape",
    "printed_size",
    "printed_bytes",
    "printed_rounded",
    "size_bytes",
    "logical_bytes",
    "padding_bytes",
    "expansion",
    "agrees",
    "inferred_tiling",
    "recomputed_shape",
    "instruction",
    "opcode",
    "op_name",
    "source",
    "label",
    "label_truncated",
    "operator",
    "allocation_type",
    "printed_unpadded",
    "printed_padding",
    "printed_expansion",
    "expected_size",
    "expected_unpadded",
    "expected_padding",
    "expected_expansion",
    "size_agrees",
    "unpadded_agrees",
    "padding_agrees",
    "expansion_agrees",
    "causes",
    "best_layout",
    "best_bytes",
    "hlo_found",
    "hlo_line",
    "hlo_bytes",
    "hlo_same_shape",
];

/// The rows of TSV output, each as the cells of `columns`.
fn cells(stdout: &str, columns: &[&str]) -> Vec<Vec<String>> {
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(header, COLUMNS);
    let at: Vec<usize> =
        columns.iter().map(|c| header.iter().position(|h| h == c).unwrap()).collect();
    lines
        .map(|l| {
            let row: Vec<&str> = l.split('\t').collect();
            assert_eq!(row.len(), COLUMNS.len());
            at.iter().map(|&k| row[k].to_string()).collect()
        })
        .collect()
}

/// One row per entry; sizes exact (derived in tests/oom.rs).
#[test]
fn tsv_has_a_row_per_entry() {
    let f = "tests/data/oom/vmem_untiled.txt";
    let r = xlayout(&["oom", f], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let columns = [
        "file",
        "entry",
        "memory_space",
        "shape",
        "printed_size",
        "printed_rounded",
        "size_bytes",
        "logical_bytes",
        "padding_bytes",
        "expansion",
        "agrees",
        "inferred_tiling",
        "instruction",
        "printed_unpadded",
        "printed_padding",
        "printed_expansion",
        "allocation_type",
        "opcode",
        "causes",
        "best_layout",
        "best_bytes",
        "hlo_bytes",
    ];
    let expected = [
        [
            f,
            "1",
            "vmem",
            "bf16[16,1280,40]{2,1,0}",
            "5.00M",
            "yes",
            "5242880",
            "1638400",
            "3604480",
            "3.20",
            "yes",
            "(8,128)(2,1)",
            "fusion.3",
            "1.56M",
            "3.44M",
            "3.2",
            "scoped",
            "fusion",
            "d2 40 -> 128 (x3.20)",
            "{1,2,0:T(8,128)(2,1)}",
            "1638400",
            "-",
        ],
        [
            f,
            "2",
            "vmem",
            "f32[256,1000]{1,0}",
            "1.00M",
            "yes",
            "1048576",
            "1024000",
            "24576",
            "1.02",
            "yes",
            "(8,128)",
            "-",
            "1000.0K",
            "24.0K",
            "1.0",
            "scoped",
            "-",
            "d1 1000 -> 1024 (x1.02)",
            "-",
            "-",
            "-",
        ],
        [
            f,
            "3",
            "vmem",
            "s8[1024,100]{1,0}",
            "128.0K",
            "yes",
            "131072",
            "102400",
            "28672",
            "1.28",
            "yes",
            "(8,128)(4,1)",
            "-",
            "100.0K",
            "28.0K",
            "1.3",
            "scoped",
            "-",
            "d1 100 -> 128 (x1.28)",
            "{0,1:T(8,128)(4,1)}",
            "106496",
            "-",
        ],
        [
            f,
            "4",
            "vmem",
            "f64[1000,100]{1,0}",
            "1.00M",
            "yes",
            "800000",
            "800000",
            "0",
            "1.00",
            "no",
            "-",
            "-",
            "781.2K",
            "-",
            "-",
            "scoped",
            "-",
            "",
            "-",
            "-",
            "-",
        ],
    ];
    assert_eq!(cells(&r.stdout, &columns), expected.map(|r| r.map(String::from).to_vec()));
}

/// Entries without a readable shape have `-` in the computed columns; unreadable entries
/// are on standard error with their numbers, and the status is 1.
#[test]
fn unreadable_entries_go_to_standard_error() {
    let f = "tests/data/oom/problems.txt";
    let r = xlayout(&["oom", "--format", "tsv", f], b"");
    assert_eq!(r.status, 1);
    let rows = cells(&r.stdout, &["entry", "size_bytes", "agrees"]);
    let expected = [["2", "-", "-"], ["3", "4096", "yes"], ["4", "-", "-"], ["5", "-", "-"]];
    assert_eq!(rows, expected.map(|r| r.map(String::from).to_vec()));
    let errors: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(errors.len(), 5);
    assert_eq!(errors[0], format!("{f}:3: entry 1: `lots` is not a size; entry left out"));
    assert_eq!(errors[2], format!("{f}:8: entry 2: unreadable line: `Mystery line without a key`"));
}

/// `--hlo`: each label's instruction found in the dump, with its whole shape and source in
/// the dump's table of named instructions, once each.
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
    assert_eq!(v["version"], 4);
    assert_eq!(v["dump"]["file"], "tests/data/oom/tpu_2024_module.txt");
    assert_eq!(v["dump"]["diagnostics"], serde_json::json!([]));
    let report = &v["reports"][0];
    assert_eq!(report["memory_space"], "hbm");
    // The section's memory space, once, and each entry's by its number.
    assert_eq!(report["memory_spaces"], serde_json::json!(["hbm"]));
    let e = &report["entries"];
    assert_eq!(e[0]["memory_space"], 0);
    assert_eq!(e[0]["instruction"], "broadcast.6042.remat3");
    assert_eq!(e[0]["size_bytes"], 4_294_967_296u64);
    assert_eq!(e[0]["size_agrees"], true);
    assert_eq!((e[0]["hlo_found"].as_bool(), e[0]["hlo_line"].as_u64()), (Some(true), Some(6)));
    assert_eq!(e[0]["hlo_bytes"], 4_294_967_296u64);
    assert_eq!(e[0]["hlo_same_shape"], true);
    // What the dump says of each instruction the entries name: by name, each once.
    let named = v["dump"]["named"].as_object().unwrap();
    let names: Vec<&str> = named.keys().map(String::as_str).collect();
    assert_eq!(names, ["broadcast.6042.remat3", "broadcast.6043.remat3"]);
    let first = &named[e[0]["instruction"].as_str().unwrap()];
    assert_eq!(
        first,
        &serde_json::json!({
            "line": 6,
            "computation": "SyncTensorsGraph.9",
            "opcode": "broadcast",
            "shape": "bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}",
            "bytes": 4_294_967_296u64,
            "op_name": "aten__expand",
            "source": "model.py:41",
        })
    );
    let second = &named[e[1]["instruction"].as_str().unwrap()];
    assert_eq!(
        (&second["source"], &second["op_name"]),
        (&Value::from("model.py:42"), &Value::from("aten__expand"))
    );
    let tsv = xlayout(
        &[
            "oom",
            "--hlo",
            "tests/data/oom/tpu_2024_module.txt",
            "tests/data/oom/tpu_2024_new_labels.txt",
        ],
        b"",
    );
    let rows = cells(&tsv.stdout, &["instruction", "hlo_found", "hlo_line", "hlo_bytes"]);
    assert_eq!(rows[0], ["broadcast.6042.remat3", "yes", "6", "4294967296"]);
    assert_eq!(rows[1], ["broadcast.6043.remat3", "yes", "8", "4294967296"]);
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
195.44M of padding; the program is 2.02G over

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
            "tests/data/oom/gpu_peak_buffers.txt,1,12,-,\"f32[5104,257152]\",4.89GiB,5250597519,yes,5250015232,"
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

/// Text with no report in it is said to be so, with exit status 1; as is a header whose
/// lines hide their entries.
#[test]
fn no_report_is_an_error() {
    let r = xlayout(&["oom"], b"hello\n");
    assert_eq!(r.status, 1);
    assert_eq!(r.stderr, "standard input: no out-of-memory report found\n");
    let r = xlayout(
        &["oom", "--format", "table"],
        b"Ran out of memory in memory space hbm.\n>> 1. Size: 1K\n",
    );
    assert_eq!(r.status, 1);
    assert_eq!(r.stderr, "standard input: a header but no entries: are the lines prefixed?\n");
    assert!(
        r.stdout.contains("\na header but no entries: are the lines prefixed?\n"),
        "{}",
        r.stdout
    );
    // The runtime's own message is a report with no entries.
    let r = xlayout(&["oom", "--format", "table", "tests/data/oom/runtime_reserve.txt"], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    assert_eq!(
        r.stdout,
        "tests/data/oom/runtime_reserve.txt: TPU runtime out of memory: could not reserve 10.51G (bottom of memory); 8.97G free, 0B reserved, 8.97G reservable; short by about 1.54G (the figures are rounded)\n"
    );
}

/// `--hlo`: an instruction of another shape, a label not in the dump, and the dump's own
/// reading problems are said.
#[test]
fn the_dump_is_checked_against_the_report() {
    let dir = support::scratch!("oom-dump");
    let dump = dir.join("dump.txt");
    std::fs::write(&dump, "%f.1 = f32[512,512]{1,0} negate(%x)\nnot hlo at all\n").unwrap();
    let report = dir.join("report.txt");
    std::fs::write(
        &report,
        "1. Size: 64.0K\n   Shape: f32[128,128]{1,0}\n   XLA label: f.1 = negate(x)\n2. Size: 1.0K\n   Shape: f32[256]{0}\n   XLA label: gone.2 = add(a, b)\n",
    )
    .unwrap();
    let (d, rp) = (dump.to_str().unwrap(), report.to_str().unwrap());
    let r = xlayout(&["oom", "--format", "json", "--hlo", d, rp], b"");
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stderr.lines().collect::<Vec<_>>(),
        [
            format!("{d}:2: unreadable line: `not hlo at all`"),
            format!("{rp}:1: entry 1: the dump's f.1 is f32[512,512]{{1,0}} (1048576 bytes), the report's f32[128,128]{{1,0}} (65536 bytes)"),
            format!("{rp}:4: entry 2: `gone.2` is not in the dump"),
        ]
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["dump"]["diagnostics"][0]["line"], 2);
    let e = &v["reports"][0]["entries"];
    assert_eq!(
        (e[0]["hlo_found"].as_bool(), e[0]["hlo_same_shape"].as_bool(), e[0]["hlo_bytes"].as_u64()),
        (Some(true), Some(false), Some(1_048_576))
    );
    assert_eq!((e[1]["hlo_found"].as_bool(), e[1]["hlo_line"].clone()), (Some(false), Value::Null));
    let r = xlayout(&["oom", "--format", "table", "--hlo", d, rp], b"");
    assert!(r.stdout.contains("\n  entry 2: `gone.2` is not in the dump\n"), "{}", r.stdout);
}

/// Entries listed with no size (older vmem reports' scoped allocations) are listed by
/// allocation type, instruction and label, said to carry no size; the report is read
/// (status 0), not "a header but no entries".
#[test]
fn entries_without_a_size_are_listed() {
    let file = "tests/data/oom/vmem_scoped_no_sizes.txt";
    let r = xlayout(&["oom", "--format", "table", file], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let table = [
        format!("{file}: TPU out-of-memory report, memory space vmem"),
        "4 entries listed with no size (by label and allocation type only): nothing to recompute or add up".to_string(),
        String::new(),
        "  #  allocation type  instruction    label".to_string(),
        "  1  scoped           -              register allocator spill slots".to_string(),
    ];
    assert_eq!(r.stdout.lines().take(5).collect::<Vec<_>>(), table, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("\n  4  scoped           convolution.7  %convolution.7 = bf16[64,28,28,128]"),
        "{}",
        r.stdout
    );
    let r = xlayout(&["oom", "--format", "json", file], b"");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let types: Vec<&str> = v["reports"][0]["sizeless"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["allocation_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["scoped"; 4]);
}

/// Where padding is a large share of the listed memory, the table holds it against what the
/// program is over (the library's figures: tests/oom.rs, padding_against_the_overage).
#[test]
fn padding_is_held_against_the_overage() {
    let says = |file: &str| {
        let r = xlayout(&["oom", "--format", "table", &format!("tests/data/oom/{file}")], b"");
        r.stdout.lines().find(|l| l.contains(" of padding; ")).map(str::to_string)
    };
    assert_eq!(
        says("tpu_2019_glog.txt").as_deref(),
        Some("31.00G of padding; the program is 25.74G over: the padding is more than the overage")
    );
    assert_eq!(
        says("e1000_crlf.txt").as_deref(),
        Some("195.44M of padding; the program is 2.02G over")
    );
    assert_eq!((says("gpu_peak_buffers.txt"), says("problems.txt")), (None, None));
}

/// XLA:GPU's report in its own units, with its stats block.
#[test]
fn gpu_reports_in_their_units() {
    let r = xlayout(&["oom", "--format", "table", "tests/data/oom/gpu_peak_buffers.txt"], b"");
    assert_eq!(r.status, 0);
    assert!(
        r.stdout
            .contains("\nBufferAssignment stats:\n  parameter allocation             1.02GiB\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  total fragmentation              112B (0.00%)\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("\n  1  4.89GiB     4.89GiB     4.89GiB     0B       1.00x  yes  "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\n  2  1004.50MiB  1004.50MiB  1004.50MiB  0B  "), "{}", r.stdout);
    // The size it failed to allocate, as XLA's HumanReadableNumBytes writes it: 2110783616
    // bytes are 1.966 GiB, `1.97GiB` (the report's own `preallocated temp allocation`).
    let header = "tests/data/oom/gpu_peak_buffers.txt: XLA:GPU buffer assignment report: \
                  failed to allocate 2110783616 bytes (1.97GiB)\n";
    assert!(r.stdout.starts_with(header), "{}", r.stdout);
    let exact =
        ["oom", "--format", "table", "--bytes", "exact", "tests/data/oom/gpu_peak_buffers.txt"];
    let r = xlayout(&exact, b"");
    assert!(r.stdout.contains(": failed to allocate 2110783616 bytes\n"), "{}", r.stdout);
    let r = xlayout(
        &["oom", "--format", "table", "--bytes", "oom", "tests/data/oom/gpu_peak_buffers.txt"],
        b"",
    );
    assert!(r.stdout.contains("\n  1  4.89GiB     4.89G     4.89G     0B  "), "{}", r.stdout);
    assert!(r.stdout.contains(": failed to allocate 2110783616 bytes (1.97G)\n"), "{}", r.stdout);
}

/// `oom --help` is written for oom: its rows are entries.
#[test]
fn help_is_written_for_oom() {
    let r = xlayout(&["oom", "--help"], b"");
    assert_eq!(r.status, 0);
    assert!(r.stdout.contains("one row per entry of each report"), "{}", r.stdout);
    assert!(!r.stdout.contains("one row per instruction"), "{}", r.stdout);
}

/// A byte that is not UTF-8 in a report is read as U+FFFD and said, with its line, as `hlo`
/// says it of a module: on standard error, in the status and in the JSON's problems.
#[test]
fn bytes_that_are_not_utf8_are_said_with_their_line() {
    let report = b"Ran out of memory in memory space hbm. Used 20.00G of 16.00G hbm.\n\
                   Program hbm requirement 20.00G \xff\n\
                   1. Size: 4.00G\n   Shape: f32[1073741824]{0}\n";
    let r = xlayout(&["oom", "--format", "json"], report);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "standard input:2: byte 97 of the file (0xff) is not UTF-8; the line is read with U+FFFD \
         in place of each bad sequence\n"
    );
    let json: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let problems = &json["reports"][0]["problems"];
    assert_eq!(problems.as_array().map(Vec::len), Some(1), "{problems}");
    assert_eq!(problems[0]["line"], 2);
    assert_eq!(problems[0]["entry"], Value::Null);
    // The entry is read as before.
    assert_eq!(json["reports"][0]["entries"][0]["size_bytes"], 4u64 << 30);
}

/// XLA:CPU's one line (`RESOURCE_EXHAUSTED: Out of memory allocating N bytes.`, what JAX
/// raises on CPU, tests/data/oom/cpu_out_of_memory.txt) is read: the size it asked for,
/// exact and in the table's units; no entries, exit status 0.
#[test]
fn xla_cpu_out_of_memory_is_read() {
    let file = "tests/data/oom/cpu_out_of_memory.txt";
    let r = xlayout(&["oom", "--format", "table", file], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    assert_eq!(
        r.stdout,
        format!("{file}: XLA:CPU out of memory: failed to allocate 549755813888 bytes (512.00G)\n")
    );
    let r = xlayout(&["oom", "--format", "json", file], b"");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["reports"][0]["kind"], "cpu");
    assert_eq!(v["reports"][0]["allocating"]["bytes"], 549_755_813_888u64);
}
