// the error points at the `0` in `T(0,2)`
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:T(0,2)});
}
