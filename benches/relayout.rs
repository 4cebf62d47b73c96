//! Relayout throughput against a memory copy of the same bytes, in the same run.
//!
//! The baseline is the faster of two copies of as many bytes as the relayout writes:
//! `copy_from_slice` (the C library's `memcpy`) and a copy with SSE2 non-temporal stores
//! (`stream_copy` below; on some machines `memcpy` does not stream at these sizes and the
//! streaming copy is up to twice as fast). Both are measured, in the same process.
//!
//! `cargo bench --bench relayout` runs one criterion group: for every case `copy`,
//! `copy-stream` and the `relayout` itself, single-threaded (and `relayout-par` with
//! `--features rayon`). Afterwards it prints a table of best-of-9 times measured back to
//! back, the copies and the relayouts alternating, in rounds (three, or
//! `RELAYOUT_BENCH_ROUNDS`), with each relayout's throughput as a fraction of the faster
//! copy's (the median round, and the range): the figures BENCHMARKS.md records.
//! With `--features rayon` the table also gives the parallel relayout, against the same
//! one-thread copy and against the streaming copy split between all threads (cut on cache
//! lines): what the memory system gives this machine's cores together, the ceiling of any
//! parallel relayout.
//! `RELAYOUT_BENCH_SUMMARY_ONLY=1` skips criterion and prints only the table;
//! `RELAYOUT_BENCH_CASE=text` keeps only the cases whose name contains `text`;
//! `XLAYOUT_SIMD=sse2` (or `portable`) runs the plans at that SIMD level.

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

/// `dst.copy_from_slice(src)` with SSE2 non-temporal stores from the first 16-byte boundary
/// of `dst`: the other baseline.
fn stream_copy(dst: &mut [u8], src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        dst[..head].copy_from_slice(&src[..head]);
        let whole = (dst.len() - head) / 16 * 16;
        for k in (head..head + whole).step_by(16) {
            let (from, to) = (&src[k..k + 16], &mut dst[k..k + 16]);
            // SAFETY: SSE2 is part of x86_64. `from` is 16 readable bytes (an unaligned
            // load is allowed); `to` is 16 writable bytes, exclusively borrowed, starting
            // at a 16-byte boundary (`head` is where the first one is, and `k - head` is a
            // multiple of 16), as the non-temporal store needs.
            unsafe {
                let v = _mm_loadu_si128(from.as_ptr().cast::<__m128i>());
                _mm_stream_si128(to.as_mut_ptr().cast::<__m128i>(), v);
            }
        }
        dst[head + whole..].copy_from_slice(&src[head + whole..]);
        // SAFETY: a store fence has no operands and only orders the stores above.
        unsafe { _mm_sfence() };
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// [`stream_copy`] on all threads, each taking a run of whole cache lines of `dst`.
#[cfg(feature = "rayon")]
fn par_stream_copy(dst: &mut [u8], src: &[u8]) {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads().max(1);
    let piece = dst.len().div_ceil(threads).next_multiple_of(64).max(64);
    dst.par_chunks_mut(piece).zip(src.par_chunks(piece)).for_each(|(d, s)| stream_copy(d, s));
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
        group.bench_function(format!("copy-stream/{}", k.name), |b| {
            b.iter(|| stream_copy(&mut k.copy_dst, black_box(&k.copy_src)))
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

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// One round: the best of 9 of each, taken in turn so a disturbance (another process on
/// the core) hits all of them. Times of memcpy, the streaming copy, the relayout and (with
/// rayon) the parallel relayout and the streaming copy on all threads.
fn round(k: &mut Case) -> [Duration; 5] {
    let mut best = [Duration::MAX; 5];
    for _ in 0..9 {
        let t = [
            time(|| k.copy_dst.copy_from_slice(black_box(&k.copy_src))),
            time(|| stream_copy(&mut k.copy_dst, black_box(&k.copy_src))),
            time(|| k.plan.run(black_box(&k.src), &mut k.dst).unwrap()),
            #[cfg(feature = "rayon")]
            time(|| k.plan.run_parallel(black_box(&k.src), &mut k.dst).unwrap()),
            #[cfg(not(feature = "rayon"))]
            Duration::MAX,
            #[cfg(feature = "rayon")]
            time(|| par_stream_copy(&mut k.copy_dst, black_box(&k.copy_src))),
            #[cfg(not(feature = "rayon"))]
            Duration::MAX,
        ];
        for (b, t) in best.iter_mut().zip(t) {
            *b = (*b).min(t);
        }
    }
    best
}

/// The table: per case, the round with the median fraction of the faster copy.
fn summary(_: &mut Criterion) {
    let rounds: usize = std::env::var("RELAYOUT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    println!();
    println!(
        "| case | bytes written | memcpy GB/s | stream copy GB/s | relayout GB/s | \
         fraction of faster copy (median) | range of {rounds} rounds | relayout-par GB/s | \
         par ÷ faster copy | stream copy, all threads, GB/s | par ÷ all-threads copy |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for spec in cases() {
        let mut k = case(spec);
        let faster = |t: &[Duration; 5]| t[0].min(t[1]).as_secs_f64();
        let mut all: Vec<(f64, [Duration; 5])> = (0..rounds)
            .map(|_| {
                let t = round(&mut k);
                (faster(&t) / t[2].as_secs_f64(), t)
            })
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (ratio, t) = all[rounds / 2];
        let n = k.plan.dst_len() as f64;
        let gbs = |d: Duration| n / d.as_secs_f64() / 1e9;
        let par = if cfg!(feature = "rayon") {
            let par = t[3].as_secs_f64();
            let (all_copy, ratio) = (gbs(t[4]), t[4].as_secs_f64() / par);
            format!("{:.2} | {:.2} | {all_copy:.2} | {ratio:.2}", gbs(t[3]), faster(&t) / par)
        } else {
            String::from("- | - | - | -")
        };
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}-{:.2} | {par} |",
            k.name,
            k.plan.dst_len(),
            gbs(t[0]),
            gbs(t[1]),
            gbs(t[2]),
            ratio,
            all[0].0,
            all[rounds - 1].0,
        );
    }
}

criterion_group!(benches, bench, summary);
criterion_main!(benches);
