//! Summing a `T(8,128)` buffer through what `layout!` generates, against the same loop with a
//! hand-written index expression, measured in the same run. The claim under test: the
//! generated accessor costs what the hand-written expression costs.
//!
//! `cargo bench --bench static_access`

use std::hint::black_box;

use criterion::{Criterion, Throughput};

mod common;
use common::median_ns;
use xlayout::StaticView;
use xlayout::{layout, StaticLayout};

layout! { struct Tiled = f32[256,1024]{1,0:T(8,128)}; }

const GROUP: &str = "static_access/f32[256,1024]{1,0:T(8,128)}";
const ROWS: usize = 256;
const COLS: usize = 1024;

/// The layout's offset, by hand: 8 tiles of 128 columns per row block, 1024 per tile.
#[inline(always)]
fn hand(i: usize, j: usize) -> usize {
    ((i >> 3) * (COLS / 128) + (j >> 7)) * 1024 + ((i & 7) << 7) + (j & 127)
}

fn sums(c: &mut Criterion) {
    let data: Vec<f32> = (0..Tiled::PADDED_LEN).map(|k| (k % 7) as f32).collect();
    for i in (0..ROWS).step_by(3) {
        for j in (0..COLS).step_by(5) {
            assert_eq!(hand(i, j), Tiled.offset([i, j]));
        }
    }
    let mut g = c.benchmark_group(GROUP);
    g.throughput(Throughput::Elements((ROWS * COLS) as u64));
    g.sample_size(30);
    g.bench_function("hand-written", |b| {
        let data = black_box(&data[..]);
        b.iter(|| {
            let mut sum = 0.0f32;
            for i in 0..ROWS {
                for j in 0..COLS {
                    sum += data[hand(i, j)];
                }
            }
            sum
        })
    });
    g.bench_function("StaticView index", |b| {
        let view = StaticView::<Tiled>::new(black_box(&data[..])).unwrap();
        b.iter(|| {
            let mut sum = 0.0f32;
            for i in 0..ROWS {
                for j in 0..COLS {
                    sum += view[[i, j]];
                }
            }
            sum
        })
    });
    g.bench_function("offset_unchecked", |b| {
        let data = black_box(&data[..]);
        b.iter(|| {
            let mut sum = 0.0f32;
            for i in 0..ROWS {
                for j in 0..COLS {
                    sum += data[Tiled.offset_unchecked([i, j])];
                }
            }
            sum
        })
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    sums(&mut c);
    c.final_summary();
    let n = (ROWS * COLS) as f64;
    if let Some(base) = median_ns(GROUP, "hand-written") {
        println!("\nratio to the hand-written expression (median; lower is better):");
        println!("  hand-written               {:.3} ns/element", base / n);
        for bench in ["StaticView index", "offset_unchecked"] {
            if let Some(t) = median_ns(GROUP, bench) {
                println!("  {bench:<26} {:.3} ns/element  ratio {:.2}", t / n, t / base);
            }
        }
    }
}
