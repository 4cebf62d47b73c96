// `#(t)` is a sparse-array field
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:#(u32)});
}
