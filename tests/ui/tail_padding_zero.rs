// `L(n)` needs n >= 1 (XLA's parser aborts on L(0))
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:T(2,2)L(0)});
}
