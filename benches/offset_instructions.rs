//! The offset benchmark's workload as a plain program with a fixed amount of work, for
//! instruction counts that do not depend on the machine's load:
//! `valgrind --tool=callgrind target/release/deps/offset_instructions-* unchecked|checked|rowmajor`
//! (one pass of one access path over the four layouts of `benches/offset.rs`; the sums it
//! prints let two builds be checked for the same answers).

use std::hint::black_box;
use xlayout::ArrayShape;
fn main() {
    // `cargo bench` passes `--bench`: any argument but the three modes runs the row-major pass.
    let which = std::env::args().nth(1).unwrap_or_default();
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
