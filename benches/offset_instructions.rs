//! The offset benchmark's workload as a plain program with a fixed amount of work, for
//! instruction counts that do not depend on the machine's load:
//! `valgrind --tool=callgrind target/release/deps/offset_instructions-* MODE`. The modes
//! `unchecked`, `checked` and `rowmajor` run one pass of one access path of the run-time plan
//! over the four layouts of `benches/offset.rs`; `static-unchecked` and `static-checked` run
//! the same pass over two `layout!` types through the `StaticLayout` trait (what generic code
//! calls), `inherent-checked` through the types' own `const fn offset`, and `hand-unchecked`
//! and `hand-checked` the same pass over their closed forms
//! written by hand (the zero-cost claim: no more instructions than those). The sums printed
//! let two builds, or a generated and a hand-written pass, be checked for the same answers.

use std::hint::black_box;
use xlayout::{layout, ArrayShape, StaticLayout};

layout! { struct F32Tiled = f32[1024,1024]{1,0:T(8,128)}; }
layout! { struct Bf16Tiled = bf16[1024,1024]{1,0:T(8,128)(2,1)}; }

/// `F32Tiled`'s offset by hand: 8 tiles of 128 columns per row block, 1024 elements a tile.
#[inline(always)]
fn f32_hand([i, j]: [usize; 2]) -> usize {
    ((i >> 3) * 8 + (j >> 7)) * 1024 + ((i & 7) << 7) + (j & 127)
}

/// `Bf16Tiled`'s offset by hand: as `F32Tiled`, rows interleaved in pairs inside a tile.
#[inline(always)]
fn bf16_hand([i, j]: [usize; 2]) -> usize {
    ((i >> 3) * 8 + (j >> 7)) * 1024 + (((i & 7) >> 1) << 8) + ((j & 127) << 1) + (i & 1)
}

/// One pass over every index of a 1024 x 1024 layout in row-major order, summing `offset`.
fn pass(offset: impl Fn([usize; 2]) -> usize) -> usize {
    let mut sum = 0usize;
    for i in 0..1024 {
        for j in 0..1024 {
            sum = sum.wrapping_add(offset(black_box([i, j])));
        }
    }
    sum
}

/// The passes over the `layout!` types and their hand-written forms; `false` for other modes.
fn static_pass(which: &str) -> bool {
    /// The hand-written checked offset: the bounds check every accessor makes.
    fn checked(offset: fn([usize; 2]) -> usize) -> impl Fn([usize; 2]) -> usize {
        move |[i, j]| {
            assert!(i < 1024 && j < 1024, "index out of bounds");
            offset([i, j])
        }
    }
    let sums = match which {
        "static-unchecked" => [
            pass(|i| StaticLayout::offset_unchecked(F32Tiled, i)),
            pass(|i| StaticLayout::offset_unchecked(Bf16Tiled, i)),
        ],
        "static-checked" => [
            pass(|i| StaticLayout::offset(F32Tiled, i)),
            pass(|i| StaticLayout::offset(Bf16Tiled, i)),
        ],
        "inherent-checked" => [pass(|i| F32Tiled.offset(i)), pass(|i| Bf16Tiled.offset(i))],
        "hand-unchecked" => [pass(f32_hand), pass(bf16_hand)],
        "hand-checked" => [pass(checked(f32_hand)), pass(checked(bf16_hand))],
        _ => return false,
    };
    for (text, sum) in [F32Tiled::TEXT, Bf16Tiled::TEXT].into_iter().zip(sums) {
        println!("{text} {sum}");
    }
    true
}

fn main() {
    // `cargo bench` passes `--bench`: any argument but the modes runs the row-major pass.
    let which = std::env::args().nth(1).unwrap_or_default();
    // The hand-written forms are the layouts' offsets (checked here on a sample).
    for i in (0..1024).step_by(7) {
        for j in (0..1024).step_by(3) {
            assert_eq!(f32_hand([i, j]), F32Tiled.offset([i, j]));
            assert_eq!(bf16_hand([i, j]), Bf16Tiled.offset([i, j]));
        }
    }
    if static_pass(&which) {
        return;
    }
    for text in [
        "f32[1024,1024]{1,0:T(8,128)}",
        "bf16[1024,1024]{1,0:T(8,128)(2,1)}",
        "f32[1000,1000]{0,1:T(3,5)}",
        "f32[10,100,1000]{2,1,0:T(2,*,3)}",
    ] {
        let a: ArrayShape = text.parse().unwrap();
        let plan = a.plan().unwrap();
        let dims = plan.dims().to_vec();
        let mut sum = 0usize;
        match which.as_str() {
            "unchecked" | "checked" => {
                let mut idx = vec![0usize; dims.len()];
                let n: usize = dims.iter().product();
                for _ in 0..n {
                    sum = sum.wrapping_add(if which == "checked" {
                        plan.offset(black_box(&idx)).unwrap()
                    } else {
                        plan.offset_unchecked(black_box(&idx))
                    });
                    let mut k = dims.len();
                    while k > 0 {
                        k -= 1;
                        idx[k] += 1;
                        if idx[k] < dims[k] {
                            break;
                        }
                        idx[k] = 0;
                    }
                }
            }
            _ => {
                for o in plan.row_major_offsets() {
                    sum = sum.wrapping_add(black_box(o));
                }
            }
        }
        println!("{text} {sum}");
    }
}
