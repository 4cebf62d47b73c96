//! Is a reshape or transpose a bitcast: the time of an answer, for small and huge arrays
//! and high ranks, against two baselines measured in the same run:
//!
//! * `two plans`: building the index space of both shapes (`Plan::untabulated`), which
//!   any question about them starts from: the answer's cost as a multiple of reading the
//!   two layouts;
//! * `element by element`: walking both index maps in row-major order and comparing every
//!   offset until the first that differs (what the answer is tested against), on the cases
//!   small enough to walk: all of them when the answer is "a bitcast".
//!
//! The answer does not depend on the element count: `f32[2^20,2^20]` takes as long as
//! `f32[4,128]`. `cargo bench --bench algebra`

use std::hint::black_box;

use criterion::Criterion;
use xlayout::algebra;
use xlayout::{ArrayShape, Plan};

mod common;
use common::median_ns;

/// What is asked of a pair of shapes.
#[derive(Clone, Copy)]
enum Ask {
    Reshape,
    Transpose(&'static [usize]),
    /// The layout of the result that makes the reshape a bitcast.
    ReshapeLayout,
}

struct Case {
    name: &'static str,
    from: &'static str,
    to: &'static str,
    ask: Ask,
    /// Whether the element-by-element walk is short enough to time.
    walk: bool,
    /// The answer, checked before timing.
    expect: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "jax#24404 4x128 -> 4x1x128 under (8,128)",
        from: "f32[4,128]{1,0:T(8,128)}",
        to: "f32[4,1,128]{2,1,0:T(8,128)}",
        ask: Ask::Reshape,
        walk: true,
        expect: false,
    },
    Case {
        name: "f32[1024,1024] (8,128) -> f32[128,8,1024], free",
        from: "f32[1024,1024]{1,0:T(8,128)}",
        to: "f32[128,8,1024]{2,1,0:T(8,128)}",
        ask: Ask::Reshape,
        walk: true,
        expect: true,
    },
    Case {
        name: "f32[1024,1024] (8,128) -> f32[1024,8,128]",
        from: "f32[1024,1024]{1,0:T(8,128)}",
        to: "f32[1024,8,128]{2,1,0:T(8,128)}",
        ask: Ask::Reshape,
        walk: true,
        expect: false,
    },
    Case {
        name: "bf16 160M elements, (8,128)(2,1), drop a 1",
        from: "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
        to: "bf16[8,1280,16384]{2,1,0:T(8,128)(2,1)}",
        ask: Ask::Reshape,
        walk: false,
        expect: true,
    },
    Case {
        name: "f32[1048576,1048576] (2 to the 40), (8,128), split rows",
        from: "f32[1048576,1048576]{1,0:T(8,128)}",
        to: "f32[131072,8,1048576]{2,1,0:T(8,128)}",
        ask: Ask::Reshape,
        walk: false,
        expect: true,
    },
    Case {
        name: "rank 8 untiled transpose",
        from: "f32[2,3,4,5,6,7,8,9]{7,6,5,4,3,2,1,0}",
        to: "f32[9,8,7,6,5,4,3,2]{0,1,2,3,4,5,6,7}",
        ask: Ask::Transpose(&[7, 6, 5, 4, 3, 2, 1, 0]),
        walk: true,
        expect: true,
    },
    Case {
        name: "rank 6 (8,128)(2,1) transpose, padded",
        from: "bf16[3,5,7,9,40,300]{5,4,3,2,1,0:T(8,128)(2,1)}",
        to: "bf16[5,3,9,7,40,300]{5,4,2,3,0,1:T(8,128)(2,1)}",
        ask: Ask::Transpose(&[1, 0, 3, 2, 4, 5]),
        walk: false,
        expect: true,
    },
    Case {
        name: "layout search: the 1 of 4x1x128 under (8,128)",
        from: "f32[4,128]{1,0:T(8,128)}",
        to: "f32[4,1,128]{2,1,0:T(8,128)}",
        ask: Ask::ReshapeLayout,
        walk: false,
        expect: true,
    },
    Case {
        name: "layout search: rank 6 under (8,128)(2,1)",
        from: "bf16[6,4,1,5,16,256]{5,4,3,2,1,0:T(8,128)(2,1)}",
        to: "bf16[6,4,5,16,2,128]{5,4,3,2,1,0:T(8,128)(2,1)}",
        ask: Ask::ReshapeLayout,
        walk: false,
        expect: false,
    },
];

fn answer(case: &Case, from: &ArrayShape, to: &ArrayShape) -> bool {
    match case.ask {
        Ask::Reshape => algebra::check_reshape(from, to, false).unwrap().is_bitcast(),
        Ask::Transpose(dims) => {
            algebra::check_transpose(from, to, dims, false).unwrap().is_bitcast()
        }
        Ask::ReshapeLayout => algebra::reshape_bitcast_layout(from, to).unwrap().is_some(),
    }
}

/// Every element's offset on both sides, in the result's row-major order.
fn walk(ask: Ask, from: &Plan, to: &Plan) -> bool {
    match ask {
        Ask::Transpose(dims) => {
            let mut index = vec![0; dims.len()];
            to.row_major().all(|(to_index, offset)| {
                for (&d, &i) in dims.iter().zip(&to_index) {
                    index[d] = i;
                }
                from.offset_unchecked(&index) == offset
            })
        }
        _ => from.row_major_offsets().zip(to.row_major_offsets()).all(|(a, b)| a == b),
    }
}

fn bench(c: &mut Criterion) {
    for case in CASES {
        let from: ArrayShape = case.from.parse().unwrap();
        let to: ArrayShape = case.to.parse().unwrap();
        assert_eq!(answer(case, &from, &to), case.expect, "{}", case.name);
        if case.walk {
            assert_eq!(
                walk(case.ask, &from.plan().unwrap(), &to.plan().unwrap()),
                case.expect,
                "{}",
                case.name
            );
        }
        let mut g = c.benchmark_group(format!("algebra/{}", case.name));
        g.sample_size(30);
        g.bench_function("two plans", |b| {
            b.iter(|| {
                let p = Plan::untabulated(&black_box(&from).check().unwrap()).unwrap();
                let q = Plan::untabulated(&black_box(&to).check().unwrap()).unwrap();
                (p.grid_len(), q.grid_len())
            })
        });
        g.bench_function("answer", |b| b.iter(|| answer(case, black_box(&from), black_box(&to))));
        if case.walk {
            let (p, q) = (from.plan().unwrap(), to.plan().unwrap());
            g.bench_function("element by element", |b| {
                b.iter(|| walk(case.ask, black_box(&p), black_box(&q)))
            });
        }
        g.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    println!("\nmedian time per answer, and as a ratio to building the two shapes' plans:");
    for case in CASES {
        let group = format!("algebra/{}", case.name);
        let (Some(base), Some(t)) = (median_ns(&group, "two plans"), median_ns(&group, "answer"))
        else {
            continue;
        };
        print!("  {:<48} {:>9.2} µs  ratio {:>6.2}", case.name, t / 1e3, t / base);
        if let Some(w) = median_ns(&group, "element by element") {
            print!("   element by element {:>11.2} µs", w / 1e3);
        }
        println!();
    }
}
