//! `xlayout peak` on a 100 MB scheduled module against `wc -l` of the same file, in the
//! same run, and the price of predicting XLA:CPU's allocation within it.
//!
//! `cargo bench --bench peak` generates a TPU-style scheduled module of about 100 MB into
//! the target directory: per layer a fused computation, a while loop whose body updates a
//! buffer in place (a dynamic-update-slice fusion) and carries a three-element tuple, its
//! condition, and every tenth layer a two-branch conditional; metadata on every
//! instruction. Then it measures on one thread:
//!
//! * `wc -l`: the `wc -l FILE` process (spawned and waited for), the floor for any reader;
//! * `hlo`: what `xlayout hlo` computes besides the peak: read, decode, parse, size every
//!   shape (`Analysis`), the buffer report (`Report`);
//! * `peak`: what `xlayout peak` does before printing: read, decode, parse, `Analysis`,
//!   then the flattened schedule, dataflow, live ranges, peak and the predicted allocation
//!   (`Peak::new`) and the summary with its names;
//! * `peak only`: `Peak::new` on a module already read and analysed;
//! * `live ranges only`: the same without the prediction (`Peak::__without_assignment`):
//!   `peak only` less this is what predicting the allocation costs (the printed `predict`
//!   row, CPU time).
//!
//! It prints each as a ratio to `wc -l`, wall clock (criterion's medians) and CPU time per
//! run (what BENCHMARKS.md records). `PEAK_BENCH_MB=N` changes the size.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use xlayout::hlo::{decode, Analysis, Module, Peak, Report, ReportOptions};

#[path = "common/mod.rs"]
mod common;
#[path = "common/process.rs"]
mod process;
use process::{cpu_per_run, wc_l};

const GROUP: &str = "peak 100 MB module";

fn target_bytes() -> usize {
    let mb: usize = std::env::var("PEAK_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    mb << 20
}

/// The computations of layer `i`, and its instructions in the entry computation.
fn layer(i: usize, entry: &mut String, out: &mut String) {
    let a = 8 + (i * 7) % 500;
    let b = 128 * (1 + i % 8) + (i % 3) * 40;
    let x = format!("f32[{a},{b}]{{1,0:T(8,128)}}");
    let v = format!("f32[{b}]{{0:T(256)}}");
    let buf = format!("f32[16,{a},{b}]{{2,1,0:T(8,128)}}");
    let s = "s32[]{:T(256)}";
    let carry = format!("({s}, {x}, {buf})");
    let l = i % 48;
    let meta = |op: &str, line: usize| {
        format!(
            "metadata={{op_name=\"jit(train_step)/jit(main)/transformer/layer_{l}/scan/while/body/{op}\" \
             source_file=\"/srv/model/transformer.py\" source_line={line}}}"
        )
    };
    let _ = write!(
        out,
        "%fused_computation.{i} (param_0.{i}: f32[{a},{b}], param_1.{i}: f32[{b}]) -> f32[{a},{b}] {{\n  \
         %param_0.{i} = {x} parameter(0)\n  \
         %param_1.{i} = {v} parameter(1)\n  \
         %broadcast.{i} = {x} broadcast(%param_1.{i}), dimensions={{1}}, {}\n  \
         ROOT %add.{i} = {x} add(%param_0.{i}, %broadcast.{i}), {}\n\
         }}\n\n\
         %dus_computation.{i} (q0.{i}: f32[16,{a},{b}], q1.{i}: f32[{a},{b}], q2.{i}: s32[]) -> f32[16,{a},{b}] {{\n  \
         %q0.{i} = {buf} parameter(0)\n  \
         %q1.{i} = {x} parameter(1)\n  \
         %bitcast.{i} = f32[1,{a},{b}]{{2,1,0:T(8,128)}} bitcast(%q1.{i})\n  \
         %q2.{i} = {s} parameter(2)\n  \
         %c0.{i} = {s} constant(0)\n  \
         ROOT %dus.{i} = {buf} dynamic-update-slice(%q0.{i}, %bitcast.{i}, %q2.{i}, %c0.{i}, %c0.{i}), {}\n\
         }}\n\n\
         %body.{i} (t.{i}: (s32[], f32[{a},{b}], f32[16,{a},{b}])) -> (s32[], f32[{a},{b}], f32[16,{a},{b}]) {{\n  \
         %t.{i} = {carry} parameter(0)\n  \
         %one.{i} = {s} constant(1)\n  \
         %acc.{i} = {buf} get-tuple-element(%t.{i}), index=2\n  \
         %x.{i} = {x} get-tuple-element(%t.{i}), index=1\n  \
         %k.{i} = {s} get-tuple-element(%t.{i}), index=0\n  \
         %next.{i} = {s} add(%k.{i}, %one.{i}), {}\n  \
         %zb.{i} = f32[]{{:T(256)}} constant(0)\n  \
         %vb.{i} = {v} broadcast(%zb.{i}), dimensions={{}}\n  \
         %y.{i} = {x} fusion(%x.{i}, %vb.{i}), kind=kLoop, calls=%fused_computation.{i}, {}\n  \
         %acc2.{i} = {buf} fusion(%acc.{i}, %y.{i}, %k.{i}), kind=kLoop, calls=%dus_computation.{i}, {}\n  \
         ROOT %r.{i} = {carry} tuple(%next.{i}, %y.{i}, %acc2.{i})\n\
         }}\n\n\
         %cond.{i} (c.{i}: (s32[], f32[{a},{b}], f32[16,{a},{b}])) -> pred[] {{\n  \
         %c.{i} = {carry} parameter(0)\n  \
         %n.{i} = {s} constant(16)\n  \
         %ck.{i} = {s} get-tuple-element(%c.{i}), index=0\n  \
         ROOT %lt.{i} = pred[]{{:T(256)}} compare(%ck.{i}, %n.{i}), direction=LT, {}\n\
         }}\n\n",
        meta("broadcast_in_dim", 100 + l),
        meta("add", 101 + l),
        meta("dynamic_update_slice", 102 + l),
        meta("add", 103 + l),
        meta("add", 104 + l),
        meta("dynamic_update_slice", 105 + l),
        meta("lt", 106 + l),
    );
    let _ = write!(
        entry,
        "  %zero.{i} = {s} constant(0)\n  \
         %init_x.{i} = {x} broadcast(%zf), dimensions={{}}, {}\n  \
         %init_buf.{i} = {buf} broadcast(%zf), dimensions={{}}, {}\n  \
         %init.{i} = {carry} tuple(%zero.{i}, %init_x.{i}, %init_buf.{i})\n  \
         %w.{i} = {carry} while(%init.{i}), condition=%cond.{i}, body=%body.{i}, {}\n  \
         %out.{i} = {buf} get-tuple-element(%w.{i}), index=2\n  \
         %sum.{i} = f32[{b}]{{0:T(256)}} reduce(%out.{i}, %zf), dimensions={{0,1}}, to_apply=%sum_f32, {}\n",
        meta("broadcast_in_dim", 111 + l),
        meta("broadcast_in_dim", 112 + l),
        meta("while", 113 + l),
        meta("reduce_sum", 114 + l),
    );
    if i % 10 == 9 {
        let _ = write!(
            out,
            "%then.{i} (p.{i}: (f32[{b}])) -> (f32[{b}]) {{\n  \
             %p.{i} = (f32[{b}]{{0:T(256)}}) parameter(0)\n  \
             %pv.{i} = {v} get-tuple-element(%p.{i}), index=0\n  \
             %neg.{i} = {v} negate(%pv.{i})\n  \
             ROOT %pt.{i} = (f32[{b}]{{0:T(256)}}) tuple(%neg.{i})\n\
             }}\n\n\
             %else.{i} (e.{i}: (f32[{b}])) -> (f32[{b}]) {{\n  \
             ROOT %e.{i} = (f32[{b}]{{0:T(256)}}) parameter(0)\n\
             }}\n\n"
        );
        let _ = write!(
            entry,
            "  %pred.{i} = pred[]{{:T(256)}} compare(%zero.{i}, %zero.{i}), direction=EQ\n  \
             %arg.{i} = (f32[{b}]{{0:T(256)}}) tuple(%sum.{i})\n  \
             %cond_out.{i} = (f32[{b}]{{0:T(256)}}) conditional(%pred.{i}, %arg.{i}, %arg.{i}), true_computation=%then.{i}, false_computation=%else.{i}\n"
        );
    }
}

/// Writes a scheduled module of about `bytes` bytes to `path`.
fn generate(path: &Path, bytes: usize) {
    let mut out = String::with_capacity(bytes + (1 << 20));
    out += "HloModule jit_train_step, is_scheduled=true, entry_computation_layout={()->f32[]}\n\n\
            %sum_f32 (lhs: f32[], rhs: f32[]) -> f32[] {\n  %lhs = f32[] parameter(0)\n  %rhs = f32[] parameter(1)\n  ROOT %s = f32[] add(%lhs, %rhs)\n}\n\n";
    let mut entry = String::from("ENTRY %main.1 () -> f32[] {\n  %zf = f32[] constant(0)\n");
    let mut i = 0;
    while out.len() + entry.len() < bytes {
        layer(i, &mut entry, &mut out);
        i += 1;
    }
    out += &entry;
    out += "  ROOT %root = f32[] copy(%zf)\n}\n";
    std::fs::write(path, out).expect("the bench writes its module to the target directory");
}

fn module_path() -> PathBuf {
    let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| String::from("target"));
    PathBuf::from(dir).join(format!("peak-bench-{}mb.txt", target_bytes() >> 20))
}

/// What `xlayout hlo` computes besides the peak: (instructions, bytes owned).
fn hlo(path: &Path) -> (usize, u64) {
    let bytes = std::fs::read(path).unwrap();
    let (text, _) = decode(&bytes);
    let module = Module::parse(&text);
    let analysis = Analysis::new(&module);
    let report = Report::new(&analysis, ReportOptions::default());
    (module.instructions.len(), report.totals.owned.sizes.array_bytes)
}

/// What `xlayout peak` computes before printing: (steps, XLA's peak bytes).
fn peak(path: &Path) -> (usize, u64) {
    let bytes = std::fs::read(path).unwrap();
    let (text, _) = decode(&bytes);
    let module = Module::parse(&text);
    let analysis = Analysis::new(&module);
    let peak = Peak::new(&analysis);
    let summary = peak.summary(&module, &Default::default());
    (summary.steps, summary.live_range_peak_bytes)
}

fn bench(c: &mut Criterion) {
    let path = module_path();
    if std::fs::metadata(&path).map(|m| m.len() as usize).ok() < Some(target_bytes()) {
        generate(&path, target_bytes());
    }
    let size = std::fs::metadata(&path).unwrap().len();
    let bytes = std::fs::read(&path).unwrap();
    let (text, problems) = decode(&bytes);
    assert!(problems.is_empty());
    let module = Module::parse(&text);
    assert!(
        module.diagnostics.is_empty(),
        "{:?}",
        &module.diagnostics[..module.diagnostics.len().min(3)]
    );
    let analysis = Analysis::new(&module);
    let p = Peak::new(&analysis);
    assert!(p.exact(), "{:?}", p.not_modelled);
    // Tiled layouts: XLA:CPU's rules, applied in full (no budget stopped them), bounded.
    let rules: Vec<_> = p.assignment.not_modelled.iter().map(|n| n.rule).collect();
    assert_eq!(rules, [xlayout::hlo::Rule::NotCpu]);
    println!(
        "{}: {size} bytes, {} lines, {} instructions, {} steps, {} values, XLA's peak step {} ({} bytes), high-water mark {} bytes, allocated as XLA:CPU would {} bytes in {} allocations (temporaries {} bytes)",
        path.display(),
        wc_l(&path),
        module.instructions.len(),
        p.sequence.len(),
        p.values.len(),
        p.xla.step,
        p.xla.bytes,
        p.high_water.array_bytes.total,
        p.assignment.allocated_bytes,
        p.assignment.allocations.len(),
        p.assignment.temp_bytes
    );

    let mut group = c.benchmark_group(GROUP);
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Bytes(size));
    group.bench_function("wc -l", |b| b.iter(|| black_box(wc_l(black_box(&path)))));
    group.bench_function("hlo", |b| b.iter(|| black_box(hlo(black_box(&path)))));
    group.bench_function("peak", |b| b.iter(|| black_box(peak(black_box(&path)))));
    group.bench_function("peak only", |b| {
        b.iter(|| black_box(Peak::new(black_box(&analysis)).xla.step))
    });
    group.bench_function("live ranges only", |b| {
        b.iter(|| black_box(Peak::__without_assignment(black_box(&analysis)).xla.step))
    });
    group.finish();
}

fn summary(_: &mut Criterion) {
    let path = module_path();
    let cpu_wc = cpu_per_run(50, true, || {
        black_box(wc_l(&path));
    });
    let cpu_hlo = cpu_per_run(3, false, || {
        black_box(hlo(&path));
    });
    let cpu_peak = cpu_per_run(3, false, || {
        black_box(peak(&path));
    });
    let bytes = std::fs::read(&path).unwrap();
    let (text, _) = decode(&bytes);
    let module = Module::parse(&text);
    let analysis = Analysis::new(&module);
    let cpu_only = cpu_per_run(3, false, || {
        black_box(Peak::new(&analysis).xla.step);
    });
    let cpu_ranges = cpu_per_run(3, false, || {
        black_box(Peak::__without_assignment(&analysis).xla.step);
    });
    process::ratio_table(
        GROUP,
        &[
            ("wc -l", cpu_wc),
            ("hlo", cpu_hlo),
            ("peak", cpu_peak),
            ("peak only", cpu_only),
            ("live ranges only", cpu_ranges),
        ],
        cpu_wc,
    );
    // Criterion's medians of the two, and their CPU times: the prediction's price.
    let median = |name| common::median_ns(GROUP, name);
    if let (Some(with), Some(without)) = (median("peak only"), median("live ranges only")) {
        let cpu = match (cpu_only, cpu_ranges) {
            (Some(w), Some(o)) => format!("{:.3} s", w - o),
            _ => String::from("-"),
        };
        println!(
            "| predict (peak only - live ranges only) | {:.3} s | | {cpu} | |",
            (with - without) / 1e9
        );
    }
}

criterion_group!(benches, bench, summary);
criterion_main!(benches);
