//! Reading a whole HLO dump against `wc -l` of the same file, in the same run.
//!
//! `cargo bench --bench hlo` generates a TPU-style module of about 100 MB (fused
//! computations with tiled shapes in operand lists, metadata on every instruction, tuples
//! with `/*index=5*/`, a multi-line backend_config now and then, a few thousand distinct
//! shapes) into the target directory, then measures on one thread:
//!
//! * `wc -l`: the `wc -l FILE` process (spawned and waited for): the cost of looking at every
//!   byte once, the floor for any reader;
//! * `analyse`: what `xlayout hlo` does before printing: read the file, decode, parse every
//!   statement, size every distinct shape, size and classify every instruction, totals and
//!   top lists;
//! * `parse`: reading and `Module::parse` alone.
//!
//! Afterwards it prints each as a ratio to `wc -l`: criterion's wall-clock medians of this
//! run, and the CPU time per run (from `/proc/self/stat`, which other processes sharing the
//! machine do not inflate): the figures BENCHMARKS.md records. `HLO_BENCH_MB=N` changes the
//! size.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use xlayout::hlo::{decode, Analysis, Module, Report, ReportOptions};

#[path = "common/mod.rs"]
mod common;
#[path = "common/process.rs"]
mod process;
use process::{cpu_per_run, wc_l};

const GROUP: &str = "hlo 100 MB dump";

fn target_bytes() -> usize {
    let mb: usize = std::env::var("HLO_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    mb << 20
}

/// One fused computation and the entry instructions that use it.
fn block(i: usize, entry: &mut String, out: &mut String) {
    // A few thousand distinct shapes, most of them padding under (8,128).
    let a = 8 + (i * 7) % 1000;
    let b = 128 * (1 + i % 16) + (i % 3) * 40;
    let t = format!("f32[{a},{b}]{{1,0:T(8,128)}}");
    let v = format!("f32[{b}]{{0:T(256)}}");
    let h = format!("bf16[{a},{b}]{{1,0:T(8,128)(2,1)}}");
    let layer = i % 48;
    let meta = |op: &str, line: usize| {
        format!(
            "metadata={{op_name=\"jit(train_step)/jit(main)/transformer/layer_{layer}/mlp/{op}\" \
             source_file=\"/srv/model/transformer.py\" source_line={line}}}"
        )
    };
    let _ = write!(
        out,
        "%fused_computation.{i} (param_0.{i}: f32[{a},{b}], param_1.{i}: f32[{b}]) -> bf16[{a},{b}] {{\n  \
         %param_0.{i} = {t} parameter(0)\n  \
         %param_1.{i} = {v} parameter(1)\n  \
         %broadcast.{i} = {t} broadcast({v} %param_1.{i}), dimensions={{1}}, {}\n  \
         %add.{i} = {t} add({t} %param_0.{i}, {t} %broadcast.{i}), {}\n  \
         ROOT %convert.{i} = {h} convert({t} %add.{i}), {}\n\
         }}\n\n",
        meta("broadcast_in_dim", 100 + layer),
        meta("add", 101 + layer),
        meta("convert_element_type", 102 + layer),
    );
    let prev = if i == 0 { String::from("%Arg_0.1") } else { format!("%copy.{}", i - 1) };
    let _ = write!(
        entry,
        "  %fusion.{i} = {h} fusion({t} {prev}, {v} %Arg_1.2), kind=kLoop, calls=%fused_computation.{i}, {}\n  \
         %copy.{i} = {t} convert({h} %fusion.{i}), {}\n",
        meta("add", 101 + layer),
        meta("convert_element_type", 103 + layer),
    );
    if i % 50 == 49 {
        let _ = write!(
            entry,
            "  %tuple.{i} = ({t}, {t}, {t}, {t}, {t}, /*index=5*/{t}) tuple({t} %copy.{i}, {t} %copy.{i}, {t} %copy.{i}, {t} %copy.{i}, {t} %copy.{i}, /*index=5*/{t} %copy.{i})\n  \
             %gte.{i} = {t} get-tuple-element(({t}, {t}, {t}, {t}, {t}, /*index=5*/{t}) %tuple.{i}), index=5\n  \
             %custom-call.{i} = ({t}, s8[1048576]{{0}}) custom-call({t} %gte.{i}), custom_call_target=\"tpu_custom_call\", backend_config={{\n    \
             \"flags\": {{\"kind\": \"matmul\", \"tiles\": [8, 128]}},\n    \
             \"cost\": \"{i}\"\n  \
             }}\n"
        );
    }
}

/// Writes a module of about `bytes` bytes to `path`.
fn generate(path: &Path, bytes: usize) {
    let mut out = String::with_capacity(bytes + (1 << 20));
    out += "HloModule jit_train_step, is_scheduled=true, entry_computation_layout={(f32[8,128]{1,0:T(8,128)}, f32[128]{0:T(256)})->f32[8,128]{1,0:T(8,128)}}, allow_spmd_sharding_propagation_to_output={true}\n\n";
    let mut entry = String::from(
        "ENTRY %main.1 (Arg_0.1: f32[8,128], Arg_1.2: f32[128]) -> f32[8,128] {\n  \
         %Arg_0.1 = f32[8,128]{1,0:T(8,128)} parameter(0)\n  \
         %Arg_1.2 = f32[128]{0:T(256)} parameter(1)\n",
    );
    let mut i = 0;
    while out.len() + entry.len() < bytes {
        block(i, &mut entry, &mut out);
        i += 1;
    }
    out += &entry;
    out += "  ROOT %root = f32[8,128]{1,0:T(8,128)} copy(f32[8,128]{1,0:T(8,128)} %Arg_0.1)\n}\n";
    std::fs::write(path, out).expect("the bench writes its dump to the target directory");
}

fn dump_path() -> PathBuf {
    let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| String::from("target"));
    PathBuf::from(dir).join(format!("hlo-bench-{}mb.txt", target_bytes() >> 20))
}

fn analyse(path: &Path) -> (usize, u64) {
    let bytes = std::fs::read(path).unwrap();
    let (text, problems) = decode(&bytes);
    assert!(problems.is_empty());
    let module = Module::parse(&text);
    let analysis = Analysis::new(&module);
    let report = Report::new(&analysis, ReportOptions::default());
    (module.instructions.len(), report.totals.owned.sizes.array_bytes)
}

fn bench(c: &mut Criterion) {
    let path = dump_path();
    if std::fs::metadata(&path).map(|m| m.len() as usize).ok() < Some(target_bytes()) {
        generate(&path, target_bytes());
    }
    let size = std::fs::metadata(&path).unwrap().len();
    let (instructions, owned) = analyse(&path);
    let module_text = std::fs::read(&path).unwrap();
    let (text, _) = decode(&module_text);
    let m = Module::parse(&text);
    assert!(m.diagnostics.is_empty(), "{:?}", &m.diagnostics[..m.diagnostics.len().min(3)]);
    println!(
        "{}: {size} bytes, {} lines, {instructions} instructions, {} distinct shapes, {owned} bytes owned",
        path.display(),
        wc_l(&path),
        m.shapes.len()
    );
    drop(m);

    let mut group = c.benchmark_group(GROUP);
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(size));
    group.bench_function("wc -l", |b| b.iter(|| black_box(wc_l(black_box(&path)))));
    group.bench_function("analyse", |b| b.iter(|| black_box(analyse(black_box(&path)))));
    group.bench_function("parse", |b| {
        b.iter(|| {
            let bytes = std::fs::read(black_box(&path)).unwrap();
            let (text, _) = decode(&bytes);
            black_box(Module::parse(&text).instructions.len())
        })
    });
    group.finish();
}

fn summary(_: &mut Criterion) {
    let path = dump_path();
    let cpu_wc = cpu_per_run(50, true, || {
        black_box(wc_l(&path));
    });
    let cpu = |f: fn(&Path)| cpu_per_run(5, false, || f(&path));
    let cpu_analyse = cpu(|p| {
        black_box(analyse(p));
    });
    let cpu_parse = cpu(|p| {
        let bytes = std::fs::read(p).unwrap();
        let (text, _) = decode(&bytes);
        black_box(Module::parse(&text).instructions.len());
    });
    process::ratio_table(
        GROUP,
        &[("wc -l", cpu_wc), ("analyse", cpu_analyse), ("parse", cpu_parse)],
        cpu_wc,
    );
}

criterion_group!(benches, bench, summary);
criterion_main!(benches);
