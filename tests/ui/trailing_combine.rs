// a `*` merges into the next dimension; the last entry has none
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:T(2,*)});
}
