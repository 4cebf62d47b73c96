//! Run-time offsets against a hand-written index expression for the same layout, measured in
//! the same run. Each benchmark sums the offsets of every logical index of the array in
//! row-major order (black-boxed per element, so neither side is vectorized away); the printed
//! ratio is the run-time path's time over the hand-written one's.
//!
//! `cargo bench --bench offset`

use std::hint::black_box;

use criterion::{Criterion, Throughput};

mod common;
use common::median_ns;
use xlayout::{ArrayShape, Plan};

fn plan(text: &str) -> Plan {
    text.parse::<ArrayShape>().unwrap().plan().unwrap()
}

/// One layout: its text, its dims (a leading 1 for rank-2 layouts) and the hand-written
/// offset expression of index `(i, j, k)`.
struct Case {
    name: &'static str,
    shape: &'static str,
    dims: [usize; 3],
    hand: fn(usize, usize, usize) -> usize,
}

const CASES: &[Case] = &[
    Case {
        name: "f32[1024,1024]{1,0:T(8,128)}",
        shape: "f32[1024,1024]{1,0:T(8,128)}",
        dims: [1, 1024, 1024],
        // 8 tiles of 128 columns per row block; 1024 elements per tile.
        hand: |_, i, j| ((i >> 3) * 8 + (j >> 7)) * 1024 + ((i & 7) << 7) + (j & 127),
    },
    Case {
        name: "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
        shape: "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
        dims: [1, 1024, 1024],
        // Inside an 8x128 tile, row pairs are interleaved: (r/2)*256 + c*2 + r%2.
        hand: |_, i, j| {
            ((i >> 3) * 8 + (j >> 7)) * 1024 + ((i & 7) >> 1) * 256 + ((j & 127) << 1) + (i & 1)
        },
    },
    Case {
        name: "f32[1000,1000]{0,1:T(3,5)}",
        shape: "f32[1000,1000]{0,1:T(3,5)}",
        dims: [1, 1000, 1000],
        // Physical order (j, i): 334 tiles of 3 along j, 200 of 5 along i, 15 per tile.
        hand: |_, i, j| ((j / 3) * 200 + i / 5) * 15 + (j % 3) * 5 + i % 5,
    },
    Case {
        // Not separable: `*` merges j into k (m = j*100 + k), so the general index program runs.
        name: "f32[10,100,1000]{2,1,0:T(2,*,3)}",
        shape: "f32[10,100,1000]{2,1,0:T(2,*,3)}",
        dims: [10, 100, 1000],
        // 5 x 33334 tiles of 2 x 3; m = j*1000 + k.
        hand: |i, j, k| {
            let m = j * 1000 + k;
            ((i / 2) * 33334 + m / 3) * 6 + (i % 2) * 3 + m % 3
        },
    },
];

/// Every index `(i, j, k)` of `dims` in row-major order; rank-2 layouts see `(j, k)`.
fn for_each(dims: [usize; 3], mut f: impl FnMut(usize, usize, usize)) {
    for i in 0..dims[0] {
        for j in 0..dims[1] {
            for k in 0..dims[2] {
                f(i, j, k);
            }
        }
    }
}

fn offsets(c: &mut Criterion) {
    for case in CASES {
        let p = plan(case.shape);
        let rank = p.rank();
        let index = move |i: usize, j: usize, k: usize| -> [usize; 3] {
            if rank == 3 {
                [i, j, k]
            } else {
                [j, k, 0]
            }
        };
        // The hand-written expression must be the layout's: check before timing.
        for_each(case.dims, |i, j, k| {
            if (i + j + k) % 7 == 0 {
                let ix = index(i, j, k);
                assert_eq!((case.hand)(i, j, k), p.offset(&ix[..rank]).unwrap(), "{}", case.name);
            }
        });
        let n: usize = case.dims.iter().product();
        let mut g = c.benchmark_group(format!("offset/{}", case.name));
        g.throughput(Throughput::Elements(n as u64));
        g.sample_size(20);
        g.bench_function("hand-written", |b| {
            let hand = black_box(case.hand);
            b.iter(|| {
                let mut sum = 0usize;
                for_each(case.dims, |i, j, k| {
                    sum = sum.wrapping_add(black_box(hand(black_box(i), j, k)));
                });
                sum
            })
        });
        g.bench_function("Plan::offset_unchecked", |b| {
            b.iter(|| {
                let mut sum = 0usize;
                for_each(case.dims, |i, j, k| {
                    let ix = index(black_box(i), j, k);
                    sum = sum.wrapping_add(black_box(p.offset_unchecked(&ix[..rank])));
                });
                sum
            })
        });
        g.bench_function("Plan::offset", |b| {
            b.iter(|| {
                let mut sum = 0usize;
                for_each(case.dims, |i, j, k| {
                    let ix = index(black_box(i), j, k);
                    sum = sum.wrapping_add(black_box(p.offset(&ix[..rank]).unwrap()));
                });
                sum
            })
        });
        g.bench_function("Plan::row_major_offsets", |b| {
            b.iter(|| p.row_major_offsets().fold(0usize, |s, o| s.wrapping_add(black_box(o))))
        });
        g.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    offsets(&mut c);
    c.final_summary();
    println!("\nratio to the hand-written expression (median time per pass; lower is better):");
    for case in CASES {
        let group = format!("offset/{}", case.name);
        let Some(base) = median_ns(&group, "hand-written") else { continue };
        let n = case.dims.iter().product::<usize>() as f64;
        println!("  {}  hand-written {:.2} ns/element", case.name, base / n);
        for bench in ["Plan::offset_unchecked", "Plan::offset", "Plan::row_major_offsets"] {
            if let Some(t) = median_ns(&group, bench) {
                println!("    {bench:<26} {:.2} ns/element  ratio {:.2}", t / n, t / base);
            }
        }
    }
}
