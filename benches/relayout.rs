//! Relayout throughput against a plain memory copy of the same bytes, in the same run.
//!
//! `cargo bench --bench relayout` runs one criterion group: for every case a `copy`
//! (`copy_from_slice` of as many bytes as the relayout writes) and the `relayout` itself,
//! single-threaded (and `relayout-par` with `--features rayon`). Afterwards it prints a
//! table of best-of-9 times measured back to back, copy and relayout alternating, in three
//! rounds, with each relayout's throughput as a fraction of the copy's (the median round,
//! and the range): the figures BENCHMARKS.md records.
//! `RELAYOUT_BENCH_SUMMARY_ONLY=1` skips criterion and prints only the table;
//! `RELAYOUT_BENCH_CASE=text` keeps only the cases whose name contains `text`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use xlayout::{ArrayShape, RelayoutPlan};

/// (name, from, to)
const CASES: &[(&str, &str, &str)] = &[
    ("f32 4096x4096 -> T(8,128)", "f32[4096,4096]{1,0}", "f32[4096,4096]{1,0:T(8,128)}"),
    ("f32 4096x4096 T(8,128) -> row-major", "f32[4096,4096]{1,0:T(8,128)}", "f32[4096,4096]{1,0}"),
    ("f32 4099x4097 -> T(8,128) (edges)", "f32[4099,4097]{1,0}", "f32[4099,4097]{1,0:T(8,128)}"),
    (
        "bf16 8192x8192 -> T(8,128)(2,1)",
        "bf16[8192,8192]{1,0}",
        "bf16[8192,8192]{1,0:T(8,128)(2,1)}",
    ),
    (
        "bf16 8192x8192 T(8,128)(2,1) -> row-major",
        "bf16[8192,8192]{1,0:T(8,128)(2,1)}",
        "bf16[8192,8192]{1,0}",
    ),
    ("s8 8192x8192 -> T(32,128)(4,1)", "s8[8192,8192]{1,0}", "s8[8192,8192]{1,0:T(32,128)(4,1)}"),
    ("f32 64x512x512 {2,1,0} -> {1,2,0}", "f32[64,512,512]{2,1,0}", "f32[64,512,512]{1,2,0}"),
    (
        "s4 8192x8192 E(4) -> T(64,128)(8,1)E(4)",
        "s4[8192,8192]{1,0:E(4)}",
        "s4[8192,8192]{1,0:T(64,128)(8,1)E(4)}",
    ),
];

struct Case {
    name: &'static str,
    plan: RelayoutPlan,
    src: Vec<u8>,
    dst: Vec<u8>,
    /// The copy's buffers: as many bytes as the relayout writes.
    copy_src: Vec<u8>,
    copy_dst: Vec<u8>,
}

fn array(text: &str) -> xlayout::ArrayShape {
    text.parse::<ArrayShape>().unwrap()
}

/// The cases selected by `RELAYOUT_BENCH_CASE`.
fn cases() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    let filter = std::env::var("RELAYOUT_BENCH_CASE").unwrap_or_default();
    CASES.iter().filter(move |(name, _, _)| name.contains(filter.as_str()))
}

fn case(&(name, from, to): &(&'static str, &str, &str)) -> Case {
    let plan = RelayoutPlan::new(&array(from), &array(to)).unwrap();
    let src: Vec<u8> = (0..plan.src_len()).map(|i| (i * 31 + i / 4099) as u8).collect();
    let n = plan.dst_len();
    // Touch every page once so no measurement pays for first faults.
    let (mut dst, copy_src, mut copy_dst) = (vec![1u8; n], vec![2u8; n], vec![3u8; n]);
    plan.run(&src, &mut dst).unwrap();
    copy_dst.copy_from_slice(&copy_src);
    Case { name, plan, src, dst, copy_src, copy_dst }
}

fn bench(c: &mut Criterion) {
    if std::env::var_os("RELAYOUT_BENCH_SUMMARY_ONLY").is_some() {
        return;
    }
    let mut group = c.benchmark_group("relayout");
    group.sample_size(10).warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(2));
    for spec in cases() {
        let mut k = case(spec);
        group.throughput(Throughput::Bytes(k.plan.dst_len() as u64));
        group.bench_function(format!("copy/{}", k.name), |b| {
            b.iter(|| k.copy_dst.copy_from_slice(black_box(&k.copy_src)))
        });
        group.bench_function(format!("relayout/{}", k.name), |b| {
            b.iter(|| k.plan.run(black_box(&k.src), &mut k.dst).unwrap())
        });
        #[cfg(feature = "rayon")]
        group.bench_function(format!("relayout-par/{}", k.name), |b| {
            b.iter(|| k.plan.run_parallel(black_box(&k.src), &mut k.dst).unwrap())
        });
    }
    group.finish();
}

fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Copy and relayout alternate, so a disturbance (another process on the core) hits both.
/// Three rounds of best-of-9 pairs; the table gives the median round and the range.
fn summary(_: &mut Criterion) {
    println!();
    println!(
        "| case | bytes written | copy GB/s | relayout GB/s | fraction of copy (median) | \
         range of 3 rounds |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for spec in cases() {
        let mut k = case(spec);
        let mut rounds: Vec<(f64, Duration, Duration)> = (0..3)
            .map(|_| {
                let (mut copy, mut relayout) = (Duration::MAX, Duration::MAX);
                for _ in 0..9 {
                    copy = copy.min(best(1, || k.copy_dst.copy_from_slice(black_box(&k.copy_src))));
                    relayout = relayout
                        .min(best(1, || k.plan.run(black_box(&k.src), &mut k.dst).unwrap()));
                }
                (copy.as_secs_f64() / relayout.as_secs_f64(), copy, relayout)
            })
            .collect();
        rounds.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (ratio, copy, relayout) = rounds[1];
        let n = k.plan.dst_len() as f64;
        let gbs = |d: Duration| n / d.as_secs_f64() / 1e9;
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2}-{:.2} |",
            k.name,
            k.plan.dst_len(),
            gbs(copy),
            gbs(relayout),
            ratio,
            rounds[0].0,
            rounds[2].0
        );
    }
}

criterion_group!(benches, bench, summary);
criterion_main!(benches);
