//! The contract of the report commands' script output: every report's TSV header names
//! exactly the fields of its JSON rows (after the columns that say which file, and which
//! grouping or peak step, a row is of, themselves keys of the JSON around the rows).

use serde_json::Value;

use crate::support::xlayout;

/// The TSV header of `args`, and the JSON of the same command.
fn header_and_json(args: &[&str]) -> (Vec<String>, Value) {
    let mut tsv = args.to_vec();
    tsv.extend(["--format", "tsv"]);
    let r = xlayout(&tsv, b"");
    let header = r.stdout.lines().next().unwrap().split('\t').map(String::from).collect();
    let mut json = args.to_vec();
    json.extend(["--format", "json"]);
    let r = xlayout(&json, b"");
    (header, serde_json::from_str(&r.stdout).unwrap())
}

/// The keys of a JSON object, sorted (serde_json's map keeps them so).
fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().cloned().collect()
}

/// Columns, sorted, to compare with [`keys`]: one column per key and one key per column.
fn sorted(columns: &[String]) -> Vec<String> {
    let mut c = columns.to_vec();
    c.sort();
    c.dedup();
    assert_eq!(c.len(), columns.len(), "a column name twice: {columns:?}");
    c
}

#[test]
fn one_name_per_field_in_every_report() {
    // hlo, one row per instruction: `file`, then `files[].instructions[]`'s keys.
    let (header, v) = header_and_json(&["hlo", "tests/data/hlo/problems.txt"]);
    let file = &v["files"][0];
    assert!(file.get("file").is_some());
    for row in file["instructions"].as_array().unwrap() {
        assert_eq!(sorted(&header[1..]), keys(row), "{row}");
    }
    // hlo --by: `file`, `group_by`, then `files[].groups[]`'s keys.
    let (header, v) =
        header_and_json(&["hlo", "--by", "opcode", "tests/data/hlo/tpu_train_step.txt"]);
    let file = &v["files"][0];
    assert_eq!(file["group_by"], "opcode");
    assert_eq!(header[..2], ["file", "group_by"]);
    for row in file["groups"].as_array().unwrap() {
        assert_eq!(sorted(&header[2..]), keys(row), "{row}");
    }
    // peak: `file`, `live_range_peak_step`, then `files[].live[]`'s keys.
    let (header, v) = header_and_json(&["peak", "tests/data/hlo/jax_cpu/scan_cumsum"]);
    let file = &v["files"][0];
    assert!(file.get("live_range_peak_step").is_some());
    assert_eq!(header[..2], ["file", "live_range_peak_step"]);
    for row in file["live"].as_array().unwrap() {
        assert_eq!(sorted(&header[2..]), keys(row), "{row}");
    }
    // oom: `file`, then `reports[].entries[]`'s keys.
    let (header, v) = header_and_json(&[
        "oom",
        "--hlo",
        "tests/data/oom/tpu_2024_module.txt",
        "tests/data/oom/tpu_2024_new_labels.txt",
        "tests/data/oom/problems.txt",
    ]);
    let mut rows = 0;
    for report in v["reports"].as_array().unwrap() {
        assert!(report.get("file").is_some());
        for row in report["entries"].as_array().unwrap() {
            assert_eq!(sorted(&header[1..]), keys(row), "{row}");
            rows += 1;
        }
    }
    assert!(rows >= 6);
}

/// Numbers stay numbers in JSON: an expansion is the number its TSV cell prints.
#[test]
fn ratios_are_numbers() {
    let (header, v) = header_and_json(&["hlo", "tests/data/hlo/tpu_oom_shapes.txt"]);
    let at = header.iter().position(|h| h == "expansion").unwrap();
    let r = xlayout(&["hlo", "--format", "tsv", "tests/data/hlo/tpu_oom_shapes.txt"], b"");
    let tsv: Vec<f64> =
        r.stdout.lines().skip(1).map(|l| l.split('\t').nth(at).unwrap().parse().unwrap()).collect();
    let json: Vec<f64> = v["files"][0]["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["expansion"].as_f64().unwrap())
        .collect();
    assert_eq!(tsv, json);
    assert_eq!(json, [32.0, 128.0, 4.0, 4.0, 3.2, 3.98]);
}

/// StableHLO is answered with one line saying what to give instead.
#[test]
fn stablehlo_is_named() {
    let mlir = b"module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32>) {\n    %0 = stablehlo.negate %arg0 : tensor<8xf32>\n    return %0 : tensor<8xf32>\n  }\n}\n";
    for command in ["hlo", "peak"] {
        let r = xlayout(&[command, "--format", "json", "-"], mlir);
        assert_eq!(r.status, 1, "{command}");
        assert_eq!(
            r.stderr,
            "standard input:1: this is MLIR (StableHLO, what `lower(...).as_text()` gives), not HLO module text: give the compiled module, `jax.jit(f).lower(...).compile().as_text()`, or the `*after_optimizations.txt` that XLA_FLAGS=--xla_dump_to=DIR writes\n",
            "{command}"
        );
    }
}

/// A name many rows share is a number in the JSON's rows, and that number's entry in the
/// table beside them is the name the TSV's cell gives.
#[test]
fn shared_names_are_numbers_in_json_and_names_in_tsv() {
    let cases: [(&[&str], &str, &str, &str, &str); 5] = [
        (
            &["hlo", "tests/data/hlo/tpu_train_step.txt"],
            "files",
            "instructions",
            "computation",
            "computations",
        ),
        (
            &["hlo", "tests/data/hlo/tpu_train_step.txt"],
            "files",
            "instructions",
            "source_file",
            "source_files",
        ),
        (
            &["peak", "tests/data/hlo/jax_cpu/scan_cumsum"],
            "files",
            "live",
            "computation",
            "computations",
        ),
        (
            &["relayouts", "tests/data/hlo/jax_cpu/transpose_reshape"],
            "files",
            "rows",
            "computation",
            "computations",
        ),
        (
            &["oom", "tests/data/oom/vmem_untiled.txt"],
            "reports",
            "entries",
            "memory_space",
            "memory_spaces",
        ),
    ];
    for (args, list, rows, key, table) in cases {
        let (header, v) = header_and_json(args);
        let column = header.iter().position(|h| h == key).unwrap();
        let mut tsv = args.to_vec();
        tsv.extend(["--format", "tsv"]);
        let r = xlayout(&tsv, b"");
        let cells: Vec<String> = r
            .stdout
            .lines()
            .skip(1)
            .map(|l| l.split('\t').nth(column).unwrap().to_string())
            .collect();
        let file = &v[list][0];
        let named: Vec<String> = file[rows]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| match row[key].as_u64() {
                Some(k) => file[table][k as usize].as_str().unwrap().to_string(),
                None => String::from("-"),
            })
            .collect();
        assert!(!named.is_empty() && named.iter().any(|n| n != "-"), "{args:?}");
        assert_eq!(cells, named, "{args:?} {key}");
    }
}
