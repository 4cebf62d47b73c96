//! Relayout throughput against a memory copy of the same bytes and against numpy's recipe
//! for the same case, in the same run, with the settings each plan chose.
//!
//! The baseline is the fastest of the copies of as many bytes as the relayout writes:
//! `copy_from_slice` (the C library's `memcpy`) and copies with non-temporal stores, 16
//! bytes a store (SSE2, `stream_copy` below) and, where the CPU has AVX-512, 64
//! (`stream_copy64`); the table's "stream copy" is the faster of those two (on some
//! machines `memcpy` does not stream at these sizes and a streaming copy is up to twice as
//! fast; on a Zen 4 guest either width was the faster, run by run). All are measured in
//! the same process. Every destination (the relayout's and the copies') starts on a
//! 64-byte boundary (`AlignedBox`, what `RelayoutPlan::run_owned` returns); the copies'
//! source at the same place in a line as the relayout's (a `Vec`, 16 bytes past one).
//!
//! `cargo bench --bench relayout` runs one criterion group: for every case `copy`,
//! `copy-stream` and the `relayout` itself, single-threaded (and `relayout-par` with
//! `--features rayon`). Afterwards it prints the machine (CPU model, family and model, the
//! SIMD extensions it has and the levels xlayout runs there, load average), then two
//! tables of best-of-9 times measured back to back, the copies and the relayouts
//! alternating, in rounds (three, or `RELAYOUT_BENCH_ROUNDS`): the round with the median
//! fraction of the faster copy, and the range over the rounds. The first table has one
//! thread: each relayout as a fraction of the faster copy, numpy's recipe for the case
//! (`benches/relayout_numpy_xla.py --numpy-only`, run by this bench when `python3` with
//! numpy is there), xlayout's speed over numpy's, and what the plan chose
//! (`RelayoutPlan::choice`: its settings, and for a measured choice how far ahead of the
//! next candidate it was, the winner's own noise and its speed against a copy timed beside
//! it). The second has what measuring cost and gave: the first run (the one that
//! measures) against the runs after it, and the plan's rules alone
//! (`with_measuring(false)`) as a fraction of the faster copy; with `--features rayon`,
//! the parallel relayout against the one-thread copy and against the streaming copy split
//! between all threads (cut on cache lines): what the memory system gives this machine's
//! cores together, the ceiling of any parallel relayout; and what a second measuring run
//! of the plan chose ("the same" when the two agree). The tables are Markdown, to paste.
//! `RELAYOUT_BENCH_SUMMARY_ONLY=1` skips criterion and prints only the tables (and only
//! then is each plan's first run in the process its measuring run);
//! `RELAYOUT_BENCH_CASE=text` keeps only the cases whose name contains `text`;
//! `RELAYOUT_BENCH_NUMPY=0` leaves numpy out;
//! `XLAYOUT_SIMD=avx2` (or `sse2`, `portable`) runs the plans at that SIMD level;
//! `RELAYOUT_BENCH_CLOCK=thread` times the one-thread figures on the thread's CPU clock
//! (for a busy machine: time descheduled does not count; the parallel ones stay wall-clock).

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use xlayout::{AlignedBox, ArrayShape, ChosenBy, RelayoutPlan, Simd};

/// (name, from, to); the names are those of `relayout_numpy_xla.py`.
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
    /// The same plan on its rules alone.
    rules: RelayoutPlan,
    src: Vec<u8>,
    dst: AlignedBox<u8>,
    /// The copy's buffers: as many bytes as the relayout writes, the source at the same
    /// place in a cache line as the relayout's (`copy_from`).
    copy_src: AlignedBox<u8>,
    copy_dst: AlignedBox<u8>,
    copy_from: usize,
    /// The first run of the plan (the one that measures) over the median of the five after
    /// it; `None` when a run in this process had measured this shape already.
    first_run: Option<f64>,
    /// What a second measuring run chose (`RelayoutPlan::__remeasure`, not remembered):
    /// whether two measurements of the plan agree.
    second: xlayout::RelayoutChoice,
}

fn array(text: &str) -> xlayout::ArrayShape {
    text.parse::<ArrayShape>().unwrap()
}

/// The cases selected by `RELAYOUT_BENCH_CASE`.
fn cases() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    let filter = std::env::var("RELAYOUT_BENCH_CASE").unwrap_or_default();
    CASES.iter().filter(move |(name, _, _)| name.contains(filter.as_str()))
}

/// How long `f` took on the clock of the one-thread figures: wall-clock time, or with
/// `RELAYOUT_BENCH_CLOCK=thread` this thread's CPU time, which leaves out the time the
/// thread was descheduled (for a machine other processes keep busy; the table says which).
fn time(f: impl FnOnce()) -> Duration {
    match thread_clock() {
        true => {
            let t = thread_cpu();
            f();
            thread_cpu().saturating_sub(t)
        }
        false => wall(f),
    }
}

/// How long `f` took, wall-clock (the parallel figures always).
fn wall(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn thread_clock() -> bool {
    static THREAD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *THREAD.get_or_init(|| std::env::var("RELAYOUT_BENCH_CLOCK").is_ok_and(|c| c == "thread"))
}

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`); zero where there is none.
fn thread_cpu() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `clock_gettime` writes one `timespec` through its pointer, which points to
        // a live local of that type.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    Duration::ZERO
}

fn case(&(name, from, to): &(&'static str, &str, &str)) -> Case {
    let plan = RelayoutPlan::new(&array(from), &array(to)).unwrap();
    let rules = plan.clone().with_measuring(false);
    let src: Vec<u8> = (0..plan.src_len()).map(|i| (i * 31 + i / 4099) as u8).collect();
    let n = plan.dst_len();
    // Touch every page once so no measurement pays for first faults.
    // The copies read from where the relayout does in a cache line (a `Vec` of megabytes
    // starts 16 bytes past one), so that the baseline's loads meet the lines as the
    // relayout's do; its destination starts on one, as the relayout's.
    let copy_from = src.as_ptr() as usize % 64;
    let (mut dst, mut copy_src, mut copy_dst) =
        (AlignedBox::zeroed(n), AlignedBox::zeroed(n + 64), AlignedBox::zeroed(n));
    dst.fill(1);
    copy_src.fill(2);
    copy_dst.copy_from_slice(&copy_src[copy_from..copy_from + n]);
    // One run on the rules first: the measuring run below then finds the buffers as every
    // later run does (`fill` left the destination's lines dirty in the cache, which slows
    // streaming stores into them).
    rules.run(&src, &mut dst).unwrap();
    let measured_before = matches!(plan.choice().how(), ChosenBy::Measured { .. });
    let first = time(|| plan.run(&src, &mut dst).unwrap());
    let mut later: Vec<Duration> =
        (0..5).map(|_| time(|| plan.run(&src, &mut dst).unwrap())).collect();
    later.sort();
    let first_run = (!measured_before).then(|| first.as_secs_f64() / later[2].as_secs_f64());
    let second = plan.__remeasure(&src, &mut dst).unwrap();
    Case { name, plan, rules, src, dst, copy_src, copy_dst, copy_from, first_run, second }
}

/// What a choice runs with, without how it was chosen.
fn settings(c: &xlayout::RelayoutChoice) -> (Simd, bool, usize, usize, bool) {
    (c.simd(), c.streams(), c.transpose_rows(), c.row_groups(), c.reorders())
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

/// A copy with AVX-512's 64-byte non-temporal stores, a whole line each, where the CPU has
/// them (`false` where it has not, and the copy had 16-byte stores): the other width of
/// streaming copy, faster than the 16-byte one on some machines and slower on others (on a
/// Zen 4 guest either, run by run). The library's (`__stream_copy`): what a measuring plan
/// compares its candidates with; the intrinsics are newer than the workspace's
/// rust-version, and the library's build finds out whether the compiler has them.
fn stream_copy64(dst: &mut [u8], src: &[u8]) -> bool {
    xlayout::__stream_copy(dst, src, true)
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
            let from = &k.copy_src[k.copy_from..k.copy_from + k.copy_dst.len()];
            b.iter(|| k.copy_dst.copy_from_slice(black_box(from)))
        });
        group.bench_function(format!("copy-stream/{}", k.name), |b| {
            let from = &k.copy_src[k.copy_from..k.copy_from + k.copy_dst.len()];
            b.iter(|| stream_copy(&mut k.copy_dst, black_box(from)))
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

/// The times one round takes the best of 9 of: memcpy, the streaming copy (the faster of
/// its 16- and 64-byte stores), the relayout, the relayout on its rules alone, and (with
/// rayon) the parallel relayout and the streaming copy on all threads.
const COLUMNS: usize = 6;

/// One round: the best of 9 of each, taken in turn so a disturbance (another process on
/// the core) hits all of them.
fn round(k: &mut Case) -> [Duration; COLUMNS] {
    let mut best = [Duration::MAX; COLUMNS];
    for _ in 0..9 {
        let from = &k.copy_src[k.copy_from..k.copy_from + k.copy_dst.len()];
        let stream16 = time(|| stream_copy(&mut k.copy_dst, black_box(from)));
        let mut wide = true;
        let stream64 = time(|| wide = stream_copy64(&mut k.copy_dst, black_box(from)));
        let t = [
            time(|| k.copy_dst.copy_from_slice(black_box(from))),
            if wide { stream16.min(stream64) } else { stream16 },
            time(|| k.plan.run(black_box(&k.src), &mut k.dst).unwrap()),
            time(|| k.rules.run(black_box(&k.src), &mut k.dst).unwrap()),
            #[cfg(feature = "rayon")]
            wall(|| k.plan.run_parallel(black_box(&k.src), &mut k.dst).unwrap()),
            #[cfg(not(feature = "rayon"))]
            Duration::MAX,
            #[cfg(feature = "rayon")]
            wall(|| par_stream_copy(&mut k.copy_dst, black_box(from))),
            #[cfg(not(feature = "rayon"))]
            Duration::MAX,
        ];
        for (b, t) in best.iter_mut().zip(t) {
            *b = (*b).min(t);
        }
    }
    best
}

/// numpy's recipe for each case (`relayout_numpy_xla.py --numpy-only --json`), as
/// (case, seconds of the recipe, seconds of numpy's copy); empty when there is no python3
/// with numpy, or `RELAYOUT_BENCH_NUMPY=0`.
fn numpy(rounds: usize) -> Vec<(String, f64, f64)> {
    if std::env::var("RELAYOUT_BENCH_NUMPY").is_ok_and(|v| v == "0") {
        return Vec::new();
    }
    let filter = std::env::var("RELAYOUT_BENCH_CASE").unwrap_or_default();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/relayout_numpy_xla.py");
    let out = Command::new("python3")
        .args([script, "--numpy-only", "--json", "--case", &filter])
        .args(["--rounds", &(3 * rounds).to_string()])
        .args(["--clock", if thread_clock() { "thread" } else { "wall" }])
        .output();
    let Ok(out) = out.map_err(|e| eprintln!("numpy left out: python3: {e}")) else {
        return Vec::new();
    };
    if !out.status.success() {
        eprintln!("numpy left out: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    // One object per line: {"case": "...", "bytes": n, "copy_s": t, "recipe_s": t}.
    let field = |line: &str, key: &str| -> Option<String> {
        let rest = &line[line.find(&format!("\"{key}\": "))? + key.len() + 4..];
        let value = match rest.strip_prefix('"') {
            Some(text) => &text[..text.find('"')?], // case names hold commas, no quotes
            None => &rest[..rest.find([',', '}'])?],
        };
        Some(value.to_string())
    };
    let parse = |line: &str| -> Option<(String, f64, f64)> {
        let seconds = |key| field(line, key)?.parse().ok();
        Some((field(line, "case")?, seconds("recipe_s")?, seconds("copy_s")?))
    };
    String::from_utf8_lossy(&out.stdout).lines().filter_map(parse).collect()
}

/// What the figures were taken on: the CPU (model name, family, model and stepping from
/// `/proc/cpuinfo`, the SIMD extensions of x86 that the kernels care about, and the levels
/// xlayout runs there) and the load average.
fn machine() -> (String, String) {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| -> Option<String> {
        let line = info.lines().find(|l| l.split(':').next().map(str::trim) == Some(name))?;
        Some(line.split(':').nth(1)?.trim().to_string())
    };
    let model = field("model name").unwrap_or_else(|| "unknown CPU".into());
    let id = match (field("cpu family"), field("model"), field("stepping")) {
        (Some(f), Some(m), Some(s)) => format!(", family {f} model {m} stepping {s}"),
        _ => String::new(),
    };
    let flags = field("flags").unwrap_or_default();
    let wanted = ["avx2", "avx512f", "avx512bw", "avx512vl", "avx512vbmi", "avx512_vbmi2"];
    let has: Vec<&str> = wanted.into_iter().filter(|w| flags.split(' ').any(|f| f == *w)).collect();
    let levels: Vec<&str> = Simd::supported().map(Simd::name).collect();
    let load = std::fs::read_to_string("/proc/loadavg").ok();
    let load = load.map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "));
    let threads = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = format!(
        "{model}{id} ({threads} threads; {}; xlayout levels: {})",
        if has.is_empty() { String::from("no AVX2 or AVX-512") } else { has.join(" ") },
        levels.join(", ")
    );
    (cpu, load.unwrap_or_else(|| "unknown".into()))
}

/// The tables: per case, the round with the median fraction of the faster copy.
fn summary(_: &mut Criterion) {
    let rounds: usize = std::env::var("RELAYOUT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let (cpu, load) = machine();
    let numpy = numpy(rounds);
    println!();
    let clock = if thread_clock() { "thread CPU time" } else { "wall-clock time" };
    println!("{cpu}; load average {load} at the start; one-thread figures in {clock}");
    let mut one = Vec::new();
    let mut more = Vec::new();
    for spec in cases() {
        let mut k = case(spec);
        let faster = |t: &[Duration; COLUMNS]| t[0].min(t[1]).as_secs_f64();
        let mut all: Vec<(f64, [Duration; COLUMNS])> = (0..rounds)
            .map(|_| {
                let t = round(&mut k);
                (faster(&t) / t[2].as_secs_f64(), t)
            })
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (ratio, t) = all[rounds / 2];
        let n = k.plan.dst_len() as f64;
        let gbs = |d: Duration| n / d.as_secs_f64() / 1e9;
        let np = numpy.iter().find(|(name, ..)| name == k.name);
        let np = match np {
            Some(&(_, recipe, _)) => {
                format!("{:.2} | {:.2}", n / recipe / 1e9, recipe / t[2].as_secs_f64())
            }
            None => String::from("- | -"),
        };
        one.push(format!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {ratio:.2} | {:.2}-{:.2} | {np} | {} |",
            k.name,
            k.plan.dst_len(),
            gbs(t[0]),
            gbs(t[1]),
            gbs(t[2]),
            all[0].0,
            all[rounds - 1].0,
            k.plan.choice(),
        ));
        let first = k.first_run.map_or(String::from("-"), |r| format!("{r:.2}"));
        let rules = faster(&t) / t[3].as_secs_f64();
        let par = if cfg!(feature = "rayon") {
            let par = t[4].as_secs_f64();
            let (all_copy, ratio) = (gbs(t[5]), t[5].as_secs_f64() / par);
            format!("{:.2} | {:.2} | {all_copy:.2} | {ratio:.2}", gbs(t[4]), faster(&t) / par)
        } else {
            String::from("- | - | - | -")
        };
        let second = match (k.plan.choice().how(), settings(&k.plan.choice())) {
            (ChosenBy::Rules, _) => String::from("-"),
            (_, chosen) if chosen == settings(&k.second) => String::from("the same"),
            _ => k.second.to_string(),
        };
        more.push(format!("| {} | {first} | {rules:.2} | {ratio:.2} | {par} | {second} |", k.name));
    }
    println!();
    println!(
        "| case | bytes written | memcpy GB/s | stream copy GB/s | xlayout GB/s | \
         ÷ faster copy (median) | range of {rounds} rounds | numpy recipe GB/s | \
         xlayout ÷ numpy | the plan's choice |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    one.iter().for_each(|row| println!("{row}"));
    println!();
    println!(
        "| case | first run ÷ later runs | rules alone ÷ faster copy | measured ÷ faster copy | \
         relayout-par GB/s | par ÷ faster copy | stream copy, all threads, GB/s | \
         par ÷ all-threads copy | a second measurement's choice |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    more.iter().for_each(|row| println!("{row}"));
    println!();
    println!("load average {} at the end", machine().1);
}

criterion_group!(benches, bench, summary);
criterion_main!(benches);
