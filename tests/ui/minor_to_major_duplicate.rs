// each dimension once: the error points at the second `1`
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,1});
}
