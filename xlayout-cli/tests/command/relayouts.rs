//! `xlayout bitcast` and `xlayout relayouts` as people and scripts use them: the answer and
//! exit status, the JSON and TSV contract, real dumps (XLA:CPU's, a TPU step) and tiled
//! shapes, and the README's examples as the real output.

use serde_json::Value;

use crate::support::{xlayout, Run};

const X: &str = "f32[4,128]{1,0:T(8,128)}";
const SPLIT: &str = "f32[4,1,128]{2,1,0:T(8,128)}";
const LEAD: &str = "f32[1,4,128]{2,1,0:T(8,128)}";

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn bitcast_answers_with_its_exit_status() {
    // jax-ml/jax#24404: 4x128 -> 4x1x128 under (8,128) moves rows into tiles of their own.
    let r = xlayout(&["bitcast", X, SPLIT], b"");
    assert_eq!((r.status, r.stderr.as_str()), (1, ""));
    assert_eq!(
        r.stdout,
        "not a bitcast: element (1,0) of the operand is at offset 128; as element (1,0,0) of the \
         result (its row-major position 128) it is at offset 1024\n\
         a copy would move 20480 bytes (20.0K): it reads 4096 bytes (4.0K) and writes 16384 bytes (16.0K)\n\
         a bitcast with TO laid out as f32[4,1,128]{2,0,1:T(8,128)}\n\
         XLA's open-source ReshapeIsBitcast says it is one: it looks at minor_to_major only, not tiles or sizes\n  \
         reshape from f32[4,128]{1,0:T(8,128)}\n  to f32[4,1,128]{2,1,0:T(8,128)}\n"
    );
    let r = xlayout(&["bitcast", X, LEAD], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    assert!(r.stdout.starts_with("a bitcast: every element stays where it is\n"), "{}", r.stdout);
    // A shape that cannot be read: its error with a caret, status 2 (as cmp).
    let r = xlayout(&["bitcast", "f32[4,128]{1,0:T(0,128)}", SPLIT], b"");
    assert_eq!((r.status, r.stdout.as_str()), (2, ""));
    assert!(
        r.stderr.ends_with("  f32[4,128]{1,0:T(0,128)}\n                   ^\n"),
        "{}",
        r.stderr
    );
    // Dimensions that are no transpose between the shapes: status 2 too.
    let r = xlayout(&["bitcast", "f32[10,5]", "f32[5,10]", "--transpose", "0,0"], b"");
    assert_eq!((r.status, r.stdout.as_str()), (2, ""));
    // Standard input for `-`.
    let r = xlayout(&["bitcast", "-", "-"], format!("{X}\n{LEAD}\n").as_bytes());
    assert_eq!(r.status, 0);
}

#[test]
fn bitcast_json_and_tsv() {
    let r = xlayout(&["bitcast", X, SPLIT, "--format", "json"], b"");
    assert_eq!(r.status, 1);
    let v = json(&r);
    assert_eq!(v["bitcast"], false);
    assert_eq!(v["bitcast_layout"], "f32[4,1,128]{2,0,1:T(8,128)}");
    assert_eq!((v["from"].as_str(), v["to"].as_str()), (Some(X), Some(SPLIT)));
    assert_eq!(
        (&v["moved_position"], &v["moved_from_offset"], &v["moved_to_offset"]),
        (&Value::from(128), &Value::from(128), &Value::from(1024))
    );
    assert_eq!((&v["read_bytes"], &v["written_bytes"]), (&Value::from(4096), &Value::from(16384)));
    assert_eq!(v["xla_open_source"], true);
    // A transpose that is free: no layout to suggest but its own, nothing moved.
    let a = "f32[10,5]{1,0:T(8,128)}";
    let r = xlayout(
        &["bitcast", a, "f32[5,10]{0,1:T(8,128)}", "--transpose", "1,0", "--format", "json"],
        b"",
    );
    assert_eq!(r.status, 0);
    let v = json(&r);
    assert_eq!((&v["bitcast"], &v["transpose"]), (&Value::from(true), &serde_json::json!([1, 0])));
    assert_eq!(v["bitcast_layout"], "f32[5,10]{0,1:T(8,128)}");
    assert!(v["read_bytes"].is_null() && v["moved_position"].is_null());
    // A tiled layout no order of TO's dimensions fixes: `null`.
    let r = xlayout(
        &["bitcast", "f32[8,256]{1,0:T(8,128)}", "f32[2048]{0:T(1024)}", "--format", "json"],
        b"",
    );
    assert!(json(&r)["bitcast_layout"].is_null(), "{}", r.stdout);
    // TSV: a header of the JSON keys (without `version`) and one row.
    let r = xlayout(&["bitcast", X, SPLIT, "--format", "tsv"], b"");
    let lines: Vec<&str> = r.stdout.lines().collect();
    let mut keys: Vec<String> =
        v.as_object().unwrap().keys().filter(|k| *k != "version").cloned().collect();
    let mut header: Vec<String> = lines[0].split('\t').map(String::from).collect();
    keys.sort();
    header.sort();
    assert_eq!((header, lines.len()), (keys, 2));
}

const TPU: &str = "tests/data/hlo/tpu_train_step.txt";

#[test]
fn relayouts_of_a_tpu_step() {
    let r = xlayout(&["relayouts", TPU], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let reason = "element (0,1,0) of the operand is at offset 128; as element (0,0,1) of the result (its row-major position 1) it is at offset 1";
    let expected = [
        "file\tline\tcomputation\tfused\tinstruction\topcode\tfrom\tto\tdimensions\tbitcast\treason\tread_bytes\twritten_bytes\tmoved_bytes\tbitcast_layout\top_name".to_string(),
        format!("{TPU}\t6\tfused_computation\tyes\ttranspose.2\ttranspose\tf32[16,1280,40]{{2,1,0:T(8,128)}}\tf32[16,40,1280]{{2,1,0:T(8,128)}}\t0,2,1\tno\t{reason}\t10485760\t3276800\t13762560\tf32[16,40,1280]{{1,2,0:T(8,128)}}\tjit(train_step)/transpose"),
        format!("{TPU}\t42\tmain.20\tno\tcopy-start\tcopy-start\tf32[1280,4096]{{1,0:T(8,128)}}\tf32[1280,4096]{{1,0:T(8,128)S(1)}}\t-\tyes\tevery element keeps its offset; the bytes go to another memory space\t-\t-\t0\tf32[1280,4096]{{1,0:T(8,128)S(1)}}\t-"),
    ];
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), expected);
    let v = json(&xlayout(&["relayouts", "--format", "json", TPU], b""));
    let f = &v["files"][0];
    assert_eq!(
        (&f["instructions"], &f["free"], &f["moved_bytes"]),
        (&Value::from(2), &Value::from(1), &Value::from(13762560))
    );
    // The TSV columns are the keys of a JSON row, after `file`.
    let header: Vec<&str> = expected[0].split('\t').collect();
    let mut keys: Vec<&str> =
        f["rows"][0].as_object().unwrap().keys().map(String::as_str).collect();
    let mut columns = header[1..].to_vec();
    keys.sort();
    columns.sort();
    assert_eq!(keys, columns);
}

#[test]
fn relayouts_of_real_cpu_dumps() {
    // XLA:CPU after layout assignment: transposes are bitcasts inside fusions, and the copies
    // beside them do the moving.
    let r = xlayout(
        &["relayouts", "--format", "json", "tests/data/hlo/jax_cpu/transpose_reshape"],
        b"",
    );
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let v = json(&r);
    let f = &v["files"][0];
    assert_eq!(
        (&f["instructions"], &f["free"], &f["moved_bytes"]),
        (&Value::from(5), &Value::from(3), &Value::from(24576))
    );
    let rows = f["rows"].as_array().unwrap();
    let by_name = |n: &str| rows.iter().find(|r| r["instruction"] == n).unwrap();
    assert_eq!(by_name("copy.2")["from"], "f32[32,6,8]{0,2,1}");
    assert_eq!(by_name("copy.2")["to"], "f32[32,6,8]{2,1,0}");
    assert_eq!(by_name("copy.2")["moved_bytes"], 12288);
    assert_eq!(by_name("transpose.6")["bitcast"], true);
    assert_eq!(by_name("bitcast.2")["reason"], "a transpose [1, 0, 2]");
    // Every bitcast of every CPU dump is a reshape or transpose, or both: XLA's
    // DecomposeBitcast always succeeds on untiled layouts.
    let r = xlayout(&["relayouts", "--format", "json", "tests/data/hlo/jax_cpu"], b"");
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let v = json(&r);
    let mut bitcasts = 0;
    for f in v["files"].as_array().unwrap() {
        for row in f["rows"].as_array().unwrap() {
            if row["opcode"] == "bitcast" {
                bitcasts += 1;
                assert_ne!(
                    row["reason"], "no reshape or transpose: the bytes are regrouped",
                    "{row}"
                );
            }
            assert!(row["bitcast"].is_boolean(), "{row}");
        }
    }
    assert!(bitcasts > 100, "{bitcasts}");
}

#[test]
fn relayouts_of_tiled_reshapes() {
    let module = format!(
        "HloModule m\n\nENTRY %e {{\n  %p = {X} parameter(0)\n  %split = {SPLIT} reshape(%p)\n  \
         ROOT %lead = {LEAD} reshape(%p)\n}}\n"
    );
    let r = xlayout(&["relayouts", "--format", "table", "-"], module.as_bytes());
    assert_eq!((r.status, r.stderr.as_str()), (0, ""));
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "standard input: module m; 2 instructions only move elements: 1 keeps every element where it was, 20.0K (20480 bytes) moved to change layouts");
    assert!(
        lines[2].contains("split") && lines[2].contains("f32[4,1,128]{2,0,1:T(8,128)}"),
        "{}",
        r.stdout
    );
    assert!(lines[3].contains("lead") && lines[3].contains(" yes "), "{}", r.stdout);
    // A file that cannot be read: status 2.
    assert_eq!(xlayout(&["relayouts", "no/such/file.txt"], b"").status, 2);
}

/// The README's examples are what the command prints.
#[test]
fn the_readme_examples_are_the_real_output() {
    let readme = include_str!("../../../README.md");
    for (args, status) in
        [(vec!["bitcast", X, SPLIT], 1), (vec!["relayouts", "--format", "table", TPU], 0)]
    {
        let quoted: Vec<String> = args
            .iter()
            .map(|a| if a.contains('{') { format!("'{a}'") } else { a.to_string() })
            .collect();
        let command = format!("$ xlayout {}\n", quoted.join(" "));
        let start = readme.find(&command).unwrap_or_else(|| panic!("the README shows {command}"))
            + command.len();
        let shown = &readme[start..start + readme[start..].find("```").unwrap()];
        let r = xlayout(&args, b"");
        assert_eq!((shown, r.status), (r.stdout.as_str(), status));
    }
}
