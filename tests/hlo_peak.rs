//! `Peak` against XLA itself: the 59 JAX CPU programs of tests/data/hlo/jax_cpu, each with
//! XLA's scheduled module, its live ranges (`live_range.txt`, `HloLiveRange::ToString`)
//! and its buffer assignment. For every program the flattened sequence, every value's
//! live range, the peak step, the values listed at the peak (with their bytes, in XLA's
//! order) and the peak bytes are XLA's, exactly; the high-water mark and the largest sum
//! of XLA's search equal generate.py's figures in the manifest.

use std::collections::BTreeMap;

use serde_json::Value;
use xlayout::hlo::{
    decode, size_differences, Analysis, BufferAssignment, LiveRangeDump, Module, Peak,
};

fn root() -> String {
    format!("{}/tests/data/hlo/jax_cpu", env!("CARGO_MANIFEST_DIR"))
}

fn read(program: &str, file: &str) -> String {
    let path = format!("{}/{program}/{file}", root());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    decode(&bytes).0.into_owned()
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{}/manifest.json", root())).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    m["programs"].as_array().unwrap().clone()
}

/// What differs between the project's peak of one program and XLA's files; empty when
/// everything agrees.
fn differences(program: &Value) -> Vec<String> {
    let name = program["name"].as_str().unwrap();
    let text = read(name, "after_optimizations.txt");
    let xla = LiveRangeDump::parse(&read(name, "live_range.txt"));
    let m = Module::parse(&text);
    let a = Analysis::new(&m);
    let peak = Peak::new(&a);
    let mut out = Vec::new();
    let mut check = |what: &str, ours: String, theirs: String| {
        if ours != theirs {
            out.push(format!("{name}: {what}: ours {ours}, XLA's {theirs}"));
        }
    };
    check("rules not modelled", format!("{:?}", peak.not_modelled), "[]".into());
    assert!(xla.problems.is_empty(), "{name}: {:?}", xla.problems);
    let sequence: Vec<&str> = peak.sequence.iter().map(|&i| m.instructions[i].name).collect();
    check("sequence", format!("{sequence:?}"), format!("{:?}", xla.sequence));
    let ours: BTreeMap<(String, Vec<u64>), (u64, u64)> = peak
        .values
        .iter()
        .map(|v| {
            let index = v.shape_index.iter().map(|&k| u64::from(k)).collect();
            let key = (m.instructions[v.instruction].name.to_string(), index);
            (key, (u64::from(v.range.start), u64::from(v.range.end)))
        })
        .collect();
    let theirs: BTreeMap<(String, Vec<u64>), (u64, u64)> = xla
        .ranges
        .iter()
        .map(|r| ((r.instruction.clone(), r.shape_index.clone()), (r.start, r.end)))
        .collect();
    for (key, r) in &theirs {
        check(
            &format!("range of {key:?}"),
            format!("{:?}", ours.get(key)),
            format!("{:?}", Some(r)),
        );
    }
    for key in ours.keys().filter(|k| !theirs.contains_key(*k)) {
        check(&format!("value {key:?}"), "a live range".into(), "none".into());
    }
    check("peak step", peak.xla.step.to_string(), format!("{}", xla.peak_step.unwrap()));
    let live: Vec<(String, Vec<u32>, u64)> = peak
        .xla
        .live
        .iter()
        .map(|&v| {
            let v = &peak.values[v];
            (
                m.instructions[v.instruction].name.to_string(),
                v.shape_index.clone(),
                v.sizes.unwrap().bytes,
            )
        })
        .collect();
    let xla_live: Vec<(String, Vec<u32>, u64)> = xla
        .live
        .iter()
        .map(|l| {
            (l.instruction.clone(), l.shape_index.iter().map(|&k| k as u32).collect(), l.bytes)
        })
        .collect();
    check("peak list", format!("{live:?}"), format!("{xla_live:?}"));
    check("peak bytes", peak.xla.bytes.to_string(), format!("{}", xla.peak_bytes().unwrap()));
    let lr = &program["live_range"];
    check("peak bytes (manifest)", peak.xla.bytes.to_string(), lr["peak_bytes"].to_string());
    check(
        "peak instruction",
        m.instructions[peak.xla.instruction.unwrap()].name.to_string(),
        lr["peak_instruction"].as_str().unwrap().to_string(),
    );
    let r = &program["reproduction"];
    check(
        "largest sum of the search",
        peak.xla.search_bytes.to_string(),
        r["sweep_running_max_bytes"].to_string(),
    );
    let hw = peak.high_water.bytes;
    check(
        "high-water mark",
        format!("{} at {}", hw.total, hw.step),
        format!("{} at {}", r["max_live_bytes_over_steps"], r["first_step_with_max_live_bytes"]),
    );
    // On CPU there are no tiles: ArraySize is ByteSizeOf, so the marks agree.
    check(
        "high-water with padding",
        peak.high_water.array_bytes.total.to_string(),
        hw.total.to_string(),
    );
    out
}

#[test]
fn every_program_matches_xla() {
    let programs = manifest();
    assert_eq!(programs.len(), 59);
    let failures: Vec<String> = programs.iter().flat_map(differences).collect();
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn buffer_assignment_sizes_are_the_projects() {
    for program in manifest() {
        let name = program["name"].as_str().unwrap();
        let text = read(name, "after_optimizations.txt");
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        let b = BufferAssignment::parse(&read(name, "buffer_assignment.txt"));
        assert!(b.problems.is_empty(), "{name}: {:?}", b.problems);
        let ba = &program["buffer_assignment"];
        assert_eq!(b.allocations.len() as u64, ba["allocation_count"].as_u64().unwrap(), "{name}");
        assert_eq!(b.total_bytes(), ba["total_allocation_bytes"].as_u64().unwrap(), "{name}");
        let d = size_differences(&b, &a);
        assert!(d.is_empty(), "{name}: {d:?}");
    }
}
