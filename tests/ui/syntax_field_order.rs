// layout fields go in XLA's order: S before T is an error at the `T`
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:S(1)T(2,2)});
}
