//! The HLO reader on XLA's own CPU dumps of 59 JAX programs (tests/data/hlo/jax_cpu/, made by
//! tests/data/hlo/generate.py; manifest.json holds XLA's buffer assignment, read from XLA's
//! files). Every dump is read without a diagnostic, and the memory each optimized module's
//! instructions own is exactly the set of values XLA's buffer assignment allocates.

use std::collections::BTreeMap;

use serde_json::Value;
use xlayout::hlo::{decode, Analysis, Module, Ownership, Report, ReportOptions};

fn data(path: &str) -> Vec<u8> {
    crate::support::data(&format!("hlo/jax_cpu/{path}"))
}

fn programs() -> Vec<Value> {
    crate::support::jax_programs()
}

#[test]
fn every_dump_reads_without_a_diagnostic() {
    let programs = programs();
    assert_eq!(programs.len(), 59);
    for p in &programs {
        let name = p["name"].as_str().unwrap();
        for stage in ["before_optimizations", "after_optimizations"] {
            let bytes = data(&format!("{name}/{stage}.txt"));
            let (text, problems) = decode(&bytes);
            assert!(problems.is_empty(), "{name}/{stage}");
            let m = Module::parse(&text);
            assert!(m.diagnostics.is_empty(), "{name}/{stage}: {:?}", m.diagnostics);
            assert_eq!(m.name, p["module_name"].as_str(), "{name}/{stage}");
            assert_eq!(m.is_scheduled, stage == "after_optimizations", "{name}/{stage}");
            assert!(m.entry.is_some(), "{name}/{stage}");
            // Every instruction has a valid result shape.
            assert!(m.instructions.iter().all(|i| i.shape.is_some()), "{name}/{stage}");
        }
    }
}

/// (instruction, shape index) -> bytes.
type Values = BTreeMap<(String, Vec<usize>), u64>;

/// The values XLA allocates memory for: every value of every allocation except phis (a
/// while's or conditional's merge of values defined elsewhere), values in thread-local
/// allocations (those of computations inlined into their callers: XLA's CPU backend keeps
/// them on the stack) and tuples' index tables (pointers to other buffers).
fn xla_values(program: &Value, shapes: &BTreeMap<String, bool>) -> Values {
    let mut values = Values::new();
    for a in program["buffer_assignment"]["allocations"].as_array().unwrap() {
        if a["thread_local"].as_bool() == Some(true) {
            continue;
        }
        for v in a["values"].as_array().unwrap() {
            let shape = v["shape"].as_str().unwrap();
            if v["phi"].as_bool() == Some(true) || shape.starts_with('(') {
                continue;
            }
            let instruction = v["instruction"].as_str().unwrap().to_string();
            assert!(shapes.contains_key(&instruction), "{instruction} is in the module");
            let index = v["shape_index"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap() as usize)
                .collect();
            values.insert((instruction, index), v["size"].as_u64().unwrap());
        }
    }
    values
}

#[test]
fn owned_memory_is_xla_buffer_assignment() {
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for p in programs() {
        let name = p["name"].as_str().unwrap();
        let bytes = data(&format!("{name}/after_optimizations.txt"));
        let (text, _) = decode(&bytes);
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        let mut ours = Values::new();
        let mut shapes = BTreeMap::new();
        for (i, ins) in m.instructions.iter_enumerated() {
            shapes.insert(ins.name.to_string(), true);
            for leaf in a.owned_leaves(i) {
                let size = leaf.sizes.expect("CPU shapes all have a size").array_bytes;
                ours.insert((ins.name.to_string(), leaf.index.clone()), size);
            }
        }
        let xla = xla_values(&p, &shapes);
        if ours != xla {
            let only_ours: Vec<_> = ours.iter().filter(|(k, v)| xla.get(*k) != Some(v)).collect();
            let only_xla: Vec<_> = xla.iter().filter(|(k, v)| ours.get(*k) != Some(v)).collect();
            mismatches.push(format!("{name}: ours only {only_ours:?}; XLA only {only_xla:?}"));
            continue;
        }
        // XLA's total, less the thread-local buffers and tuple tables, is the owned total.
        let r = Report::new(&a, ReportOptions::default());
        assert_eq!(r.totals.owned.sizes.array_bytes, xla.values().sum::<u64>(), "{name}");
        checked += xla.len();
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    assert!(checked > 600, "{checked}");
}

#[test]
fn mlp_forward_rows() {
    let bytes = data("mlp_forward/after_optimizations.txt");
    let (text, _) = decode(&bytes);
    let m = Module::parse(&text);
    let a = Analysis::new(&m);
    let report = Report::new(&a, ReportOptions::default());
    let rows: Vec<String> = m
        .instructions
        .ids()
        .map(|i| {
            let r = report.row(i);
            let s = r.sizes.unwrap().sizes;
            format!(
                "{} {} {} {} {} {} {:?} {} {} {}",
                r.line,
                m.computations[r.computation.unwrap()].name,
                r.instruction,
                r.opcode,
                r.shape,
                s.array_bytes,
                r.ownership,
                r.owned_bytes,
                r.op_name.unwrap_or("-"),
                r.source_file.zip(r.source_line).map_or_else(
                    || String::from("-"),
                    |(f, l)| format!("{}:{l}", report.source_files.names()[f as usize])
                ),
            )
        })
        .collect();
    // f32 sizes are 4 bytes per element; stack frames 5 and 6 are line 119 of the generator,
    // 7 is line 121 (the module's FileLocations table).
    let expected = [
        "34 fused_computation param_0 parameter f32[32,128]{1,0} 16384 Embedded 0 - -",
        "35 fused_computation param_1 parameter f32[128,10]{1,0} 5120 Embedded 0 - -",
        "36 fused_computation dot_general.0 dot f32[32,10]{1,0} 1280 Embedded 0 jit(mlp_forward)/dot_general tests/data/hlo/generate.py:121",
        "40 fused_computation.1 param_0.1 parameter f32[32,64]{1,0} 8192 Embedded 0 - -",
        "41 fused_computation.1 param_1.1 parameter f32[64,128]{1,0} 32768 Embedded 0 - -",
        "42 fused_computation.1 dot_general.1 dot f32[32,128]{1,0} 16384 Embedded 0 jit(mlp_forward)/dot_general tests/data/hlo/generate.py:119",
        "46 fused_computation.2 param_0.2 parameter f32[32,10]{1,0} 1280 Embedded 0 - -",
        "47 fused_computation.2 param_1.3 parameter f32[10]{0} 40 Embedded 0 - -",
        "48 fused_computation.2 add.1 broadcast f32[32,10]{1,0} 1280 Embedded 0 jit(mlp_forward)/add tests/data/hlo/generate.py:121",
        "49 fused_computation.2 add.0 add f32[32,10]{1,0} 1280 Embedded 0 jit(mlp_forward)/add tests/data/hlo/generate.py:121",
        "53 fused_computation.3 param_0.4 parameter f32[32,128]{1,0} 16384 Embedded 0 - -",
        "54 fused_computation.3 param_1.7 parameter f32[128]{0} 512 Embedded 0 - -",
        "55 fused_computation.3 add.3 broadcast f32[32,128]{1,0} 16384 Embedded 0 jit(mlp_forward)/add tests/data/hlo/generate.py:119",
        "56 fused_computation.3 add.2 add f32[32,128]{1,0} 16384 Embedded 0 jit(mlp_forward)/add tests/data/hlo/generate.py:119",
        "57 fused_computation.3 constant.2 constant f32[] 4 Embedded 0 jit(mlp_forward)/jit(relu) tests/data/hlo/generate.py:119",
        "58 fused_computation.3 max.5 broadcast f32[32,128]{1,0} 16384 Embedded 0 jit(mlp_forward)/jit(relu)/max tests/data/hlo/generate.py:119",
        "59 fused_computation.3 max.4 maximum f32[32,128]{1,0} 16384 Embedded 0 jit(mlp_forward)/jit(relu)/max tests/data/hlo/generate.py:119",
        "63 main.2 a_0__0__0_.1 parameter f32[64,128]{1,0} 32768 Owns 32768 a[0][0][0] -",
        "64 main.2 a_0__0__1_.1 parameter f32[128]{0} 512 Owns 512 a[0][0][1] -",
        "65 main.2 a_0__1__0_.1 parameter f32[128,10]{1,0} 5120 Owns 5120 a[0][1][0] -",
        "66 main.2 a_0__1__1_.1 parameter f32[10]{0} 40 Owns 40 a[0][1][1] -",
        "67 main.2 a_1_.1 parameter f32[32,64]{1,0} 8192 Owns 8192 a[1] -",
        "68 main.2 ynn_fusion.1 fusion f32[32,128]{1,0} 16384 Owns 16384 jit(mlp_forward)/dot_general tests/data/hlo/generate.py:119",
        "69 main.2 broadcast_maximum_fusion fusion f32[32,128]{1,0} 16384 Owns 16384 jit(mlp_forward)/jit(relu)/max tests/data/hlo/generate.py:119",
        "70 main.2 ynn_fusion fusion f32[32,10]{1,0} 1280 Owns 1280 jit(mlp_forward)/dot_general tests/data/hlo/generate.py:121",
        "71 main.2 broadcast_add_fusion fusion f32[32,10]{1,0} 1280 Owns 1280 jit(mlp_forward)/add tests/data/hlo/generate.py:121",
    ];
    assert_eq!(rows, expected);
    // Four fused computations: everything inside is embedded; the entry owns its 5
    // parameters and 4 fusions.
    let owners = a.buffers.iter().filter(|b| b.ownership == Ownership::Owns).count();
    assert_eq!(owners, 9);
}
